import Testing

@testable import YrdenFront

@Suite struct OriginPolicyTests {
    private let policy = OriginPolicy(allowed: ["https://app.example.com"])

    @Test func clientsWithoutAnOriginPass() {
        #expect(policy.permits(nil))
        #expect(policy.permits(""))
    }

    @Test(arguments: [
        "http://localhost:3000", "http://127.0.0.1:8750", "http://[::1]:8750", "http://app.localhost",
        "HTTPS://APP.EXAMPLE.COM",
    ])
    func localAndListedOriginsPass(_ origin: String) {
        #expect(policy.permits(origin))
    }

    @Test(arguments: [
        "http://evil.example", "null", "https://attacker.test:8750", "http://localhost.evil.example",
        "http://127.0.0.1.evil.example", "https://app.example.com.evil.example",
    ])
    func foreignOriginsAreRefused(_ origin: String) {
        #expect(!policy.permits(origin))
    }
}
