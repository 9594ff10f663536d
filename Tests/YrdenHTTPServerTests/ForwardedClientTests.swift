import Testing

@testable import YrdenHTTPServer

/// Who a request came from behind proxies: only trusted hops' `X-Forwarded-For` is read, from the right.
@Suite struct ForwardedClientTests {
    let balancer = PeerAddress(ipv4: 10, 0, 0, 2)
    let proxies = ["10.0.0.0/8", "fd00::/8"].compactMap(PeerNetwork.init(parsing:))

    private func client(_ peer: PeerAddress?, _ header: [String], trusting: [PeerNetwork]? = nil) -> String? {
        ForwardedClient.resolve(peer: peer, forwardedFor: header, trusting: trusting ?? proxies)?.description
    }

    @Test func networksMatchTheirPrefixOnly() throws {
        let eight = try #require(PeerNetwork(parsing: "10.0.0.0/8"))
        #expect(eight.contains(PeerAddress(ipv4: 10, 255, 1, 2)))
        #expect(!eight.contains(PeerAddress(ipv4: 11, 0, 0, 1)))
        let one = try #require(PeerNetwork(parsing: "127.0.0.1"))
        #expect(one.contains(PeerAddress(ipv4: 127, 0, 0, 1)) && !one.contains(PeerAddress(ipv4: 127, 0, 0, 2)))
        let all = try #require(PeerNetwork(parsing: "0.0.0.0/0"))
        #expect(all.contains(PeerAddress(ipv4: 8, 8, 8, 8)))
        let ula = try #require(PeerNetwork(parsing: "fd00::/8"))
        #expect(ula.contains(try #require(PeerAddress(parsing: "fd12::1"))))
        #expect(!ula.contains(try #require(PeerAddress(parsing: "fe80::1"))))
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "host", "10.0.0.0/-1", "1.2.3"] {
            #expect(PeerNetwork(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func aTrustedProxyNamesItsClient() {
        #expect(client(balancer, ["203.0.113.7"]) == "203.0.113.7")
        #expect(client(balancer, ["203.0.113.7, 10.1.1.1"]) == "203.0.113.7")
        #expect(client(balancer, ["198.51.100.1", "203.0.113.7 , 10.1.1.1"]) == "203.0.113.7")
    }

    @Test func whatAClientWroteItselfIsNotBelieved() {
        // The client sent "X-Forwarded-For: 1.1.1.1"; the balancer appended the address it saw.
        #expect(client(balancer, ["1.1.1.1, 203.0.113.7"]) == "203.0.113.7")
        // A peer that is not a trusted proxy is the client, whatever it says.
        #expect(client(PeerAddress(ipv4: 203, 0, 113, 9), ["1.1.1.1"]) == "203.0.113.9")
        // No trusted proxies: the header is never read.
        #expect(client(balancer, ["1.1.1.1"], trusting: []) == "10.0.0.2")
    }

    @Test func aBadEntryStopsAtTheProxyThatPassedItOn() {
        #expect(client(balancer, ["unknown"]) == "10.0.0.2")
        #expect(client(balancer, ["garbage, 10.3.3.3"]) == "10.3.3.3")
        #expect(client(balancer, []) == "10.0.0.2")
        #expect(client(balancer, ["10.4.4.4"]) == "10.4.4.4", "every hop trusted: the farthest one")
    }
}
