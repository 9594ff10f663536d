import YrdenConfig
import YrdenProtocol

/// A call refused by a limit: which bucket was empty, its shape, and how long until it has a token.
package struct RateLimited: Error, Sendable, Hashable {
    let key: RateLimiter.Key
    package let limit: RateLimit
    package let retryAfter: Duration

    /// The JSON-RPC code of a call refused by a limit: in the range JSON-RPC leaves to servers, and 429's
    /// digits, as no MCP code exists for it.
    package static let code = -32029

    /// `user`, `profile` or `tool`: which kind of limit; fixed words, so a metric can be labelled with it.
    package var kind: String {
        switch key {
        case .user: "user"
        case .profile: "profile"
        case .tool: "tool"
        }
    }

    /// Seconds until a token is there, rounded up to the millisecond.
    package var retryAfterSeconds: Double {
        (TokenBucket.seconds(retryAfter) * 1_000).rounded(.up) / 1_000
    }

    /// What the client is told: which limit, whose, and when to retry (`data.retryAfterSeconds`).
    package var rpcError: JSONRPCError {
        var data: JSONObject = ["limit": .string(kind)]
        let subject: String
        switch key {
        case .user(let user):
            data["user"] = .string(user)
            subject = "user '\(user)''s rate limit"
        case .profile(let profile):
            data["profile"] = .string(profile)
            subject = "profile '\(profile)''s rate limit"
        case .tool(let tool, let user):
            data["tool"] = .string(tool)
            data["user"] = .string(user)
            subject = "user '\(user)''s rate limit for tool '\(tool)'"
        }
        data["rate"] = .double(limit.rate)
        data["burst"] = .int(limit.burst)
        data["retryAfterSeconds"] = .double(retryAfterSeconds)
        return JSONRPCError(
            code: Self.code,
            message: "\(subject) (\(limit)) is reached; retry in \(retryAfterSeconds) s",
            data: .object(data)
        )
    }
}
