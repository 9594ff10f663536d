import Testing

@testable import YrdenFront

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
}
