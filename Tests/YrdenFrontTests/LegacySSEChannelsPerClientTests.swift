import Testing
import YrdenEngine

@testable import YrdenFront

/// One client cannot take every legacy SSE stream from the others.
@Suite struct LegacySSEChannelsPerClientTests {
    @Test func aClientPastItsBoundIsRefusedAndOthersAreNot() throws {
        let greedy = ClientKey(authorization: nil, address: "10.0.0.1")
        let polite = ClientKey(authorization: nil, address: "10.0.0.2")
        let channels = LegacySSEChannels(limit: 10, perClientLimit: 2)
        let first = try #require(channels.openChannel(base: "", client: greedy))
        _ = try #require(channels.openChannel(base: "", client: greedy))
        #expect(channels.openChannel(base: "", client: greedy) == nil)
        #expect(channels.isFull(for: greedy))
        #expect(channels.openChannel(base: "", client: polite) != nil)
        #expect(!channels.isFull(for: polite))
        // Closing one of its streams gives the client its place back.
        channels.close(first.id)
        #expect(channels.openChannel(base: "", client: greedy) != nil)
    }
}
