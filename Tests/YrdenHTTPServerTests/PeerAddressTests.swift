import Testing

@testable import YrdenHTTPServer

/// A client's address, as the per-client bounds key it.
@Suite struct PeerAddressTests {
    @Test func addressesAreSpelledOut() {
        #expect(PeerAddress(ipv4: 127, 0, 0, 1).description == "127.0.0.1")
        #expect(PeerAddress(ipv6: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]).description == "0:0:0:0:0:0:0:1")
    }

    @Test func anIPv4MappedAddressIsTheIPv4Peer() {
        let mapped = PeerAddress(ipv6: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 7])
        #expect(mapped == PeerAddress(ipv4: 10, 0, 0, 7))
        #expect(mapped.description == "10.0.0.7")
    }
}
