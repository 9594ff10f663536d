import Testing
import YrdenLineIO

@testable import YrdenFront

/// The legacy HTTP+SSE transport's streams: unguessable ids, a bound on streams and on messages waiting.
@Suite struct LegacySSEChannelsTests {
    @Test func aPostReachesItsStreamUntilTheStreamCloses() async throws {
        let channels = LegacySSEChannels(limit: 4)
        let (id, messages) = try #require(channels.openChannel(base: ""))
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
        #expect(channels.deliver(Array("{}".utf8), to: id, base: "") == .accepted)
        #expect(channels.deliver(Array("{}".utf8), to: "0123", base: "") == .unknown)
        channels.close(id)
        #expect(channels.deliver(Array("{}".utf8), to: id, base: "") == .unknown)
        var received: [LineInput] = []
        for await message in messages { received.append(message.input) }
        #expect(received == [.line(Array("{}".utf8))], "what came before the close is still taken")
    }

    /// A stream takes POSTs only on the messages path of the endpoint that opened it: a session id of a
    /// profile's stream POSTed to `/messages` (or to another profile's) is not found there.
    @Test func aPostOnAnotherEndpointsPathDoesNotReachTheStream() throws {
        let channels = LegacySSEChannels(limit: 4)
        let (id, messages) = try #require(channels.openChannel(base: "/mcp/team"))
        #expect(channels.deliver([], to: id, base: "") == .unknown)
        #expect(channels.deliver([], to: id, base: "/mcp/other") == .unknown)
        #expect(channels.deliver([], to: id, base: "/servers/team") == .unknown)
        #expect(channels.deliver([], to: id, base: "/mcp/team") == .accepted)
        withExtendedLifetime(messages) {}
    }

    @Test func streamsAndWaitingMessagesAreBounded() throws {
        let channels = LegacySSEChannels(limit: 2)
        let (id, messages) = try #require(channels.openChannel(base: ""))
        let second = channels.openChannel(base: "")
        #expect(second != nil)
        #expect(channels.openChannel(base: "") == nil, "the third stream is refused")
        for _ in 0..<LegacySSEChannels.maxWaiting { #expect(channels.deliver([], to: id, base: "") == .accepted) }
        #expect(channels.deliver([], to: id, base: "") == .full)
        withExtendedLifetime((messages, second)) {}  // a stream nobody holds any more takes nothing
    }
}
