/// The natural logarithm, here because the standard library has none and this target imports neither
/// Foundation nor the C library: the same result on every platform, which the ranking's determinism wants.
enum NaturalLogarithm {
    private static let ln2 = 0.693_147_180_559_945_309_417_232_121_458

    /// ln(x) for a finite x > 0: x = m·2^e with m in [1, 2), ln(m) = 2·atanh((m − 1)/(m + 1)) by its series,
    /// which for |s| ≤ 1/3 reaches double precision within 16 terms.
    static func of(_ x: Double) -> Double {
        precondition(x > 0 && x.isFinite, "ln of a positive finite number")
        let exponent = Double(x.exponent)
        let mantissa = x.significand
        let s = (mantissa - 1) / (mantissa + 1)
        let square = s * s
        var power = s
        var sum = 0.0
        var denominator = 1.0
        for _ in 0..<16 {
            sum += power / denominator
            power *= square
            denominator += 2
        }
        return exponent * ln2 + 2 * sum
    }
}
