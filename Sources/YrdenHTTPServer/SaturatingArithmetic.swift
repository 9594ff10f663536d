extension Int {
    /// `self + other`, or `Int.max` where the sum would overflow (both operands are byte counts, never negative).
    func addingSaturated(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
