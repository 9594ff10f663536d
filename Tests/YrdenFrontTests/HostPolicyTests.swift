import Testing

@testable import YrdenFront

@Suite struct HostPolicyTests {
    private let loopback = HostPolicy(listenHost: "127.0.0.1", publicURL: "https://gw.example.com/base")

    @Test(arguments: [
        "127.0.0.1:8750", "localhost:8750", "LOCALHOST.", "[::1]:8750", "127.0.0.2", "app.localhost:3000",
        "gw.example.com", "GW.EXAMPLE.COM:443",
    ])
    func namesOfThisMachineAndThePublicURLPass(_ host: String) {
        #expect(loopback.permits(host))
    }

    @Test(arguments: [
        "evil.example:8750", "localhost.evil.example", "127.0.0.1.evil.example", "10.0.0.5:8750", "[::2]:8750",
        "gw.example.com.evil.example", "",
    ])
    func anyOtherNameIsRefusedOnALoopbackListener(_ host: String) {
        #expect(!loopback.permits(host))
    }

    @Test func aRequestWithoutHostAndAListenerOthersReachLetEveryNameThrough() {
        #expect(loopback.permits(nil))
        let exposed = HostPolicy(listenHost: "0.0.0.0", publicURL: nil)
        #expect(exposed.permits("10.0.0.5:8750") && exposed.permits("gateway.internal"))
    }

    @Test func theListenHostIsOneOfItsNames() {
        let named = HostPolicy(listenHost: "localhost", publicURL: nil)
        #expect(named.permits("localhost:8750") && !named.permits("evil.example"))
    }
}
