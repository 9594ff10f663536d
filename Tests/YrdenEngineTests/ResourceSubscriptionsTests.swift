import Testing
import YrdenProtocol

@testable import YrdenEngine

/// The followers of each upstream resource: counted so the upstream is told once, released when the last
/// follower stops or its session ends, and matched to updates of the resource or a part of it.
@Suite struct ResourceSubscriptionsTests {
    private static func session() -> DownstreamSession {
        DownstreamSession(id: "s", protocolVersion: ProtocolVersion.latest, clientInfo: .null)
    }

    private static let pad = ResourceSubscriptions.Key(server: "a", uri: "note://pad")

    @Test func theFirstFollowerSubscribesAndTheLastReleases() {
        let table = ResourceSubscriptions()
        let one = Self.session()
        let two = Self.session()
        #expect(table.subscribe(one, to: Self.pad) == true)
        #expect(table.subscribe(two, to: Self.pad) == false)
        #expect(table.subscribe(one, to: Self.pad) == false, "following twice is following once")
        #expect(table.unsubscribe(one, from: "note://pad") == nil)
        #expect(table.unsubscribe(two, from: "note://pad") == Self.pad)
        #expect(table.uris(on: "a").isEmpty)
    }

    @Test func updatesReachFollowersOfTheResourceOrOfWhatItIsPartOf() {
        let table = ResourceSubscriptions()
        let whole = Self.session()
        let other = Self.session()
        _ = table.subscribe(whole, to: Self.pad)
        _ = table.subscribe(other, to: ResourceSubscriptions.Key(server: "a", uri: "note://padding"))
        #expect(table.followers(of: "note://pad/line", on: "a").map(ObjectIdentifier.init) == [ObjectIdentifier(whole)])
        #expect(table.followers(of: "note://pad", on: "b").isEmpty, "another server's resource")
        #expect(table.followers(of: "note://padding", on: "a").map(ObjectIdentifier.init) == [ObjectIdentifier(other)])
    }

    @Test func anEndedSessionIsReleasedWhenPruned() {
        let table = ResourceSubscriptions()
        let leaving = Self.session()
        _ = table.subscribe(leaving, to: Self.pad)
        #expect(table.prune().isEmpty)
        leaving.end()
        #expect(table.prune() == [Self.pad])
        #expect(table.followers(of: "note://pad", on: "a").isEmpty)
    }

    @Test func aSessionFollowsAtMostItsLimit() {
        let table = ResourceSubscriptions()
        let greedy = Self.session()
        for index in 0..<ResourceSubscriptions.perSession {
            #expect(table.subscribe(greedy, to: ResourceSubscriptions.Key(server: "a", uri: "r://\(index)")) == true)
        }
        #expect(table.subscribe(greedy, to: ResourceSubscriptions.Key(server: "a", uri: "r://more")) == nil)
    }
}
