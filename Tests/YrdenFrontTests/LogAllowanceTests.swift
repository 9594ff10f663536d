import Testing

@testable import YrdenFront

@Suite struct LogAllowanceTests {
    @Test func pastTheAllowanceLinesAreCountedAndTheNextSecondsFirstLineSaysHowMany() {
        let allowance = LogAllowance(perSecond: 2)
        #expect(allowance.admit(now: 100.1) == 0)
        #expect(allowance.admit(now: 100.2) == 0)
        #expect(allowance.admit(now: 100.3) == nil)
        #expect(allowance.admit(now: 100.9) == nil)
        #expect(allowance.admit(now: 101.0) == 2, "the first line of the next second reports the two skipped")
        #expect(allowance.admit(now: 101.5) == 0)
    }
}
