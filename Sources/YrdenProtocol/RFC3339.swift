/// RFC 3339 timestamps, as the gateway writes them (UTC, `Z`: the admin API, `/healthz`, JSON log lines) and
/// reads them (the admin API's `since=`, any offset). The project's one date formatter.
///
/// Hand-written rather than a Foundation format style because both directions need microseconds: a client
/// pages through the log by sending back the `time` of the last entry it saw, and that must not match the
/// same entry again. Pure arithmetic on the proleptic Gregorian calendar, so it needs no Foundation at all.
package enum RFC3339 {
    /// `2026-05-04T10:15:02.123Z` for `seconds` since 1970 in UTC, with `fractionDigits` digits (0 to 6),
    /// truncated so that a time never prints later than it is. A time outside the years 0000–9999 that RFC 3339
    /// can write is written as the nearest end of that range, and NaN as the epoch: times come from peers too
    /// (a token's `expires_in`), and formatting one must never trap.
    package static func string(epochSeconds seconds: Double, fractionDigits: Int = 3) -> String {
        string(epochMicroseconds: microseconds(epochSeconds: seconds), fractionDigits: fractionDigits)
    }

    package static func string(epochMicroseconds micros: Int64, fractionDigits: Int = 6) -> String {
        let micros = min(max(micros, earliest), latest)
        let digits = max(0, min(6, fractionDigits))
        let (days, microsOfDay) = floorDivide(micros, 86_400_000_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let secondsOfDay = microsOfDay / 1_000_000
        var text =
            pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondsOfDay / 3600, 2) + ":"
            + pad(secondsOfDay / 60 % 60, 2) + ":" + pad(secondsOfDay % 60, 2)
        if digits > 0 {
            var scale: Int64 = 1
            for _ in digits..<6 { scale *= 10 }
            text += "." + pad(microsOfDay % 1_000_000 / scale, digits)
        }
        return text + "Z"
    }

    /// Seconds since 1970 as whole microseconds, rounded down, within the years 0000–9999 (NaN is the epoch).
    package static func microseconds(epochSeconds seconds: Double) -> Int64 {
        guard !seconds.isNaN else { return 0 }
        // Bounded as a Double first (an infinite or huge one traps in `Int64(_:)`), then exactly.
        let micros = Int64(min(max((seconds * 1_000_000).rounded(.down), -1e18), 1e18))
        return min(max(micros, earliest), latest)
    }

    /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z, in microseconds since 1970.
    static let earliest: Int64 = -62_167_219_200_000_000
    static let latest: Int64 = 253_402_300_799_999_999

    /// The instant `text` names, in microseconds since 1970 (digits beyond the sixth are dropped); `nil` when
    /// it is not an RFC 3339 `date-time` (`2026-05-04T10:15:02Z`, `2026-05-04t10:15:02.5+02:00`).
    package static func epochMicroseconds(parsing text: String) -> Int64? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), scanner.skip("T") || scanner.skip("t"),
            let hour = scanner.number(digits: 2), scanner.skip(":"),
            let minute = scanner.number(digits: 2), scanner.skip(":"),
            let second = scanner.number(digits: 2)
        else { return nil }
        var fraction: Int64 = 0
        if scanner.skip(".") {
            var count = 0
            while let digit = scanner.digit() {
                if count < 6 { fraction = fraction * 10 + Int64(digit) }
                count += 1
            }
            guard count > 0 else { return nil }
            for _ in min(count, 6)..<6 { fraction *= 10 }
        }
        var offsetMinutes = 0
        if scanner.skip("Z") || scanner.skip("z") {
            offsetMinutes = 0
        } else if let sign = scanner.sign(), let hours = scanner.number(digits: 2), scanner.skip(":"),
            let minutes = scanner.number(digits: 2), hours < 24, minutes < 60
        {
            offsetMinutes = sign * (hours * 60 + minutes)
        } else {
            return nil
        }
        guard scanner.isAtEnd, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetMinutes * 60)
        return seconds * 1_000_000 + fraction
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, after Howard Hinnant's `days_from_civil`)

    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
        return (quotient, value - quotient * divisor)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Reads ASCII digits and signs off a byte array, one piece at a time.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { index == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        mutating func digit() -> Int? {
            guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
                return nil
            }
            defer { index += 1 }
            return Int(bytes[index] - UInt8(ascii: "0"))
        }

        mutating func number(digits count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        mutating func sign() -> Int? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }
    }
}
