import Testing

@testable import YrdenProtocol

@Suite struct RFC3339Tests {
    @Test func formatsUTCWithTheAskedPrecision() {
        #expect(RFC3339.string(epochSeconds: 0, fractionDigits: 0) == "1970-01-01T00:00:00Z")
        #expect(RFC3339.string(epochSeconds: 1_777_889_702.123456, fractionDigits: 3) == "2026-05-04T10:15:02.123Z")
        #expect(RFC3339.string(epochSeconds: 1_777_889_702.5, fractionDigits: 6) == "2026-05-04T10:15:02.500000Z")
        #expect(RFC3339.string(epochSeconds: 951_782_400, fractionDigits: 0) == "2000-02-29T00:00:00Z")
        #expect(RFC3339.string(epochSeconds: -1, fractionDigits: 0) == "1969-12-31T23:59:59Z")
    }

    @Test func parsesWhatItFormats() {
        for micros: Int64 in [0, 1, 999_999, 1_777_889_702_123_456, 4_102_444_800_000_000, 951_782_400_000_000] {
            #expect(RFC3339.epochMicroseconds(parsing: RFC3339.string(epochMicroseconds: micros)) == micros)
        }
    }

    @Test func parsesOffsetsAndLowercaseAndLongFractions() {
        let utc = RFC3339.epochMicroseconds(parsing: "2026-05-04T10:15:02Z")
        #expect(utc == 1_777_889_702_000_000)
        #expect(RFC3339.epochMicroseconds(parsing: "2026-05-04T12:15:02+02:00") == utc)
        #expect(RFC3339.epochMicroseconds(parsing: "2026-05-04T05:45:02-04:30") == utc)
        #expect(RFC3339.epochMicroseconds(parsing: "2026-05-04t10:15:02z") == utc)
        #expect(RFC3339.epochMicroseconds(parsing: "2026-05-04T10:15:02.1234567891Z") == 1_777_889_702_123_456)
        #expect(RFC3339.epochMicroseconds(parsing: "2026-05-04T10:15:02.5Z") == 1_777_889_702_500_000)
    }

    @Test(arguments: [
        "", "2026-05-04", "2026-05-04T10:15:02", "2026-05-04 10:15:02Z", "2026-13-04T10:15:02Z",
        "2026-02-29T10:15:02Z", "2026-05-04T24:00:00Z", "2026-05-04T10:60:02Z", "2026-05-04T10:15:02.Z",
        "2026-05-04T10:15:02+0200", "2026-05-04T10:15:02Zjunk", "yesterday", "2026-5-4T10:15:02Z",
    ])
    func refusesWhatIsNotADateTime(_ text: String) {
        #expect(RFC3339.epochMicroseconds(parsing: text) == nil)
    }

    @Test func leapDaysExistOnlyInLeapYears() {
        #expect(RFC3339.epochMicroseconds(parsing: "2024-02-29T00:00:00Z") != nil)
        #expect(RFC3339.epochMicroseconds(parsing: "2000-02-29T00:00:00Z") != nil)
        #expect(RFC3339.epochMicroseconds(parsing: "1900-02-29T00:00:00Z") == nil)
    }

    @Test func theEpochAndTheInstantsAroundIt() {
        #expect(RFC3339.string(epochMicroseconds: 0) == "1970-01-01T00:00:00.000000Z")
        #expect(RFC3339.epochMicroseconds(parsing: "1970-01-01T00:00:00Z") == 0)
        #expect(RFC3339.string(epochMicroseconds: -1) == "1969-12-31T23:59:59.999999Z")
        #expect(RFC3339.string(epochSeconds: -0.5) == "1969-12-31T23:59:59.500Z")
        #expect(RFC3339.epochMicroseconds(parsing: "1970-01-01T01:00:00+01:00") == 0)
    }

    @Test func fractionsAreTruncatedNeverRoundedUp() {
        #expect(RFC3339.string(epochSeconds: 0.999_999_9) == "1970-01-01T00:00:00.999Z")
        #expect(RFC3339.string(epochSeconds: 59.999_9, fractionDigits: 0) == "1970-01-01T00:00:59Z")
        #expect(RFC3339.string(epochMicroseconds: 1_500_000, fractionDigits: 1) == "1970-01-01T00:00:01.5Z")
        #expect(RFC3339.string(epochMicroseconds: 1_000_001, fractionDigits: 9) == "1970-01-01T00:00:01.000001Z")
        #expect(RFC3339.epochMicroseconds(parsing: "1970-01-01T00:00:00.0000009Z") == 0)
    }

    @Test func centuriesAreLeapYearsOnlyEveryFourHundredYears() {
        #expect(RFC3339.epochMicroseconds(parsing: "2100-02-29T00:00:00Z") == nil)
        #expect(RFC3339.epochMicroseconds(parsing: "2400-02-29T00:00:00Z") != nil)
        #expect(RFC3339.string(epochSeconds: 4_107_542_400, fractionDigits: 0) == "2100-03-01T00:00:00Z")
        #expect(RFC3339.string(epochSeconds: 4_107_542_399, fractionDigits: 0) == "2100-02-28T23:59:59Z")
        #expect(RFC3339.string(epochSeconds: 1_709_164_800, fractionDigits: 0) == "2024-02-29T00:00:00Z")
    }

    @Test func everyDayOfTheCalendarRoundTrips() {
        for day in stride(from: -719_528, through: 2_932_896, by: 997) {
            let (year, month, dayOfMonth) = RFC3339.civilDate(daysSinceEpoch: Int64(day))
            #expect(RFC3339.daysSinceEpoch(year: Int(year), month: Int(month), day: Int(dayOfMonth)) == day)
        }
    }

    @Test func aLeapSecondIsTheNextSecond() {
        #expect(
            RFC3339.epochMicroseconds(parsing: "2016-12-31T23:59:60Z")
                == RFC3339.epochMicroseconds(parsing: "2017-01-01T00:00:00Z")
        )
    }

    @Test func timesNoDateTimeCanWriteAreClampedInsteadOfTrapping() {
        // A token endpoint's `expires_in` of "1e400" or "nan" becomes such a time; writing it once crashed the
        // gateway (`Int64(_:)` of an infinite Double).
        #expect(RFC3339.string(epochSeconds: .infinity) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.string(epochSeconds: 1e300) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.string(epochSeconds: -.infinity) == "0000-01-01T00:00:00.000Z")
        #expect(RFC3339.string(epochSeconds: .nan) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.string(epochMicroseconds: .max) == "9999-12-31T23:59:59.999999Z")
        #expect(RFC3339.string(epochMicroseconds: .min) == "0000-01-01T00:00:00.000000Z")
        #expect(
            RFC3339.microseconds(epochSeconds: 1e300)
                == RFC3339.epochMicroseconds(parsing: "9999-12-31T23:59:59.999999Z")
        )
        #expect(
            RFC3339.microseconds(epochSeconds: -1e300) == RFC3339.epochMicroseconds(parsing: "0000-01-01T00:00:00Z")
        )
    }
}
