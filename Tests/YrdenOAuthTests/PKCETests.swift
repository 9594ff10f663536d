import Testing

@testable import YrdenOAuth

@Suite struct PKCETests {
    /// RFC 7636 Appendix B.
    @Test func s256ChallengeMatchesTheRFCExample() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func verifierHasAnAllowedLengthAndCharset() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        for _ in 0..<50 {
            let verifier = PKCE().verifier
            #expect((43...128).contains(verifier.count))
            #expect(verifier.allSatisfy(allowed.contains))
        }
    }

    @Test func verifiersAndStatesAreNotRepeated() {
        let verifiers = Set((0..<200).map { _ in PKCE().verifier })
        let states = Set((0..<200).map { _ in SecureRandom.token() })
        #expect(verifiers.count == 200)
        #expect(states.count == 200)
        #expect(states.allSatisfy { $0.count == 43 })
    }
}
