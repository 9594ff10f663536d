import Testing
import YrdenLineIO

@testable import YrdenFront

/// The legacy HTTP+SSE transport's streams: unguessable ids, a bound on streams and on messages waiting.
@Suite struct LegacySSEChannelsTests {
    @Test func aPostReachesItsStreamUntilTheStreamCloses() async throws {
        let channels = LegacySSEChannels(limit: 4)
        let (id, messages) = try #require(channels.openChannel())
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
        #expect(channels.deliver(Array("{}".utf8), to: id) == .accepted)
        #expect(channels.deliver(Array("{}".utf8), to: "0123") == .unknown)
        channels.close(id)
        #expect(channels.deliver(Array("{}".utf8), to: id) == .unknown)
        var received: [LineInput] = []
        for await message in messages { received.append(message) }
        #expect(received == [.line(Array("{}".utf8))], "what came before the close is still taken")
    }

    @Test func streamsAndWaitingMessagesAreBounded() throws {
        let channels = LegacySSEChannels(limit: 2)
        let (id, messages) = try #require(channels.openChannel())
        let second = channels.openChannel()
        #expect(second != nil)
        #expect(channels.openChannel() == nil, "the third stream is refused")
        for _ in 0..<LegacySSEChannels.maxWaiting { #expect(channels.deliver([], to: id) == .accepted) }
        #expect(channels.deliver([], to: id) == .full)
        withExtendedLifetime((messages, second)) {}  // a stream nobody holds any more takes nothing
    }
}
