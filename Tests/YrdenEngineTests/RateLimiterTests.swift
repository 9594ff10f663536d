import Testing
import YrdenConfig
import YrdenProtocol

@testable import YrdenEngine

/// The token buckets of `limits`: one user over quota while another is not, profiles shared by their callers,
/// tools per user, what a refusal says, and the bound on buckets.
@Suite struct RateLimiterTests {
    let start = ContinuousClock.now

    private func limits(_ change: (inout LimitSettings) -> Void) -> LimitSettings {
        var settings = LimitSettings()
        change(&settings)
        return settings
    }

    @Test func oneUserOverQuotaLeavesAnotherUntouched() throws {
        let limiter = RateLimiter(limits { $0.user = RateLimit(rate: 1, burst: 3) })
        for _ in 0..<3 { #expect(limiter.admit(user: "alice", profile: nil, tool: nil, at: start) == nil) }
        let refusal = try #require(limiter.admit(user: "alice", profile: nil, tool: nil, at: start))
        #expect(refusal.kind == "user")
        #expect(refusal.retryAfter == .seconds(1))
        #expect(limiter.admit(user: "bob", profile: nil, tool: nil, at: start) == nil)
        #expect(limiter.admit(user: "alice", profile: nil, tool: nil, at: start + .milliseconds(999)) != nil)
        #expect(limiter.admit(user: "alice", profile: nil, tool: nil, at: start + .seconds(1)) == nil)
    }

    @Test func aUserNamedInUsersHasTheirOwnLimit() {
        let limiter = RateLimiter(
            limits {
                $0.user = RateLimit(rate: 1, burst: 1)
                $0.users["ci"] = RateLimit(rate: 100, burst: 5)
            }
        )
        for _ in 0..<5 { #expect(limiter.admit(user: "ci", profile: nil, tool: nil, at: start) == nil) }
        #expect(limiter.admit(user: "ci", profile: nil, tool: nil, at: start) != nil)
    }

    @Test func aProfileBucketIsSharedByItsCallers() throws {
        let limiter = RateLimiter(limits { $0.profiles["ops"] = RateLimit(rate: 0.5, burst: 2) })
        #expect(limiter.admit(user: "alice", profile: "ops", tool: nil, at: start) == nil)
        #expect(limiter.admit(user: "bob", profile: "ops", tool: nil, at: start) == nil)
        let refusal = try #require(limiter.admit(user: "carol", profile: "ops", tool: nil, at: start))
        #expect(refusal.kind == "profile")
        #expect(refusal.retryAfterSeconds == 2)
        #expect(limiter.admit(user: "carol", profile: "dev", tool: nil, at: start) == nil, "another profile")
    }

    @Test func aToolLimitIsPerUserAndARefusedCallTakesNoOtherToken() throws {
        let limiter = RateLimiter(
            limits {
                $0.user = RateLimit(rate: 1, burst: 2)
                $0.tools["demo__slow"] = RateLimit(rate: 1, burst: 1)
            }
        )
        #expect(limiter.admit(user: "alice", profile: nil, tool: "demo__slow", at: start) == nil)
        let refusal = try #require(limiter.admit(user: "alice", profile: nil, tool: "demo__slow", at: start))
        #expect(refusal.kind == "tool")
        // The refused call took nothing from alice's own bucket: one token is still there.
        #expect(limiter.admit(user: "alice", profile: nil, tool: "demo__echo", at: start) == nil)
        #expect(limiter.admit(user: "bob", profile: nil, tool: "demo__slow", at: start) == nil)
    }

    @Test func theRefusalSaysWhichLimitAndWhenToRetry() throws {
        let limiter = RateLimiter(limits { $0.user = RateLimit(rate: 4, burst: 1) })
        _ = limiter.admit(user: "alice", profile: nil, tool: nil, at: start)
        let error = try #require(limiter.admit(user: "alice", profile: nil, tool: nil, at: start)).rpcError
        #expect(error.code == RateLimited.code)
        #expect(error.message.contains("user 'alice'"))
        #expect(error.data?["limit"] == "user")
        #expect(error.data?["retryAfterSeconds"] == .double(0.25))
    }

    @Test func bucketsAreBoundedAndIdleOnesGoFirst() {
        let limiter = RateLimiter(
            limits {
                $0.user = RateLimit(rate: 1, burst: 2)
                $0.maxBuckets = 100
            }
        )
        // 100 users each take a token: their buckets are not full, so none can simply go.
        for index in 0..<100 { _ = limiter.admit(user: "user\(index)", profile: nil, tool: nil, at: start) }
        #expect(limiter.bucketCount == 100)
        _ = limiter.admit(user: "late", profile: nil, tool: nil, at: start)
        #expect(limiter.bucketCount <= 91, "the least recently used tenth made room")
        // Much later every bucket is full again: as good as new, they all go at the next sweep.
        for index in 0..<10 {
            _ = limiter.admit(user: "later\(index)", profile: nil, tool: nil, at: start + .seconds(60))
        }
        let later = start + .seconds(120)
        for index in 0..<100 { _ = limiter.admit(user: "again\(index)", profile: nil, tool: nil, at: later) }
        #expect(limiter.bucketCount <= 100)
    }

    @Test func noLimitsMeansNoBuckets() {
        let limiter = RateLimiter(LimitSettings())
        for _ in 0..<1_000 { #expect(limiter.admit(user: "alice", profile: "ops", tool: "x", at: start) == nil) }
        #expect(limiter.bucketCount == 0)
    }
}
