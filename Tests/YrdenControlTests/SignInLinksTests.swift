import Logging
import Testing
import YrdenStorage

@testable import YrdenControl
@testable import YrdenOAuth

/// The gateway's own sign-in links: one per user's pending sign-in, replaced with it, bounded, and opening
/// nothing once that sign-in is no longer pending.
@Suite struct SignInLinksTests {
    private func session(_ id: String) throws -> OAuthSession {
        try OAuthSession(
            configuration: OAuthSessionConfiguration(
                serverID: id,
                serverURL: "https://mcp.example.com/mcp",
                redirectURI: "http://127.0.0.1:8750/oauth/callback"
            ),
            http: OAuthHTTP { _ in OAuthHTTPResponse(status: 404) },
            secrets: InMemorySecretStore(),
            router: OAuthCallbackRouter(),
            logger: Logger(label: "test")
        )
    }

    @Test func aLinkIsServedBesideTheCallbackAndKeptWhileItsSignInIsTheSame() throws {
        let links = SignInLinks(redirectURI: "http://127.0.0.1:8750/oauth/callback")
        let alice = try session("tasks.user-a")
        let first = links.link(for: alice, authorizationURL: "https://as/authorize?state=1", expiresAt: 100, now: 0)
        #expect(first.hasPrefix("http://127.0.0.1:8750/oauth/sign-in/"))
        #expect(first.count - "http://127.0.0.1:8750/oauth/sign-in/".count == 43, "256 random bits")
        #expect(
            links.link(for: alice, authorizationURL: "https://as/authorize?state=1", expiresAt: 100, now: 1) == first
        )
        let second = links.link(for: alice, authorizationURL: "https://as/authorize?state=2", expiresAt: 200, now: 2)
        #expect(second != first)
        #expect(links.count == 1, "a new sign-in of the same user replaces the link of the old one")
        let bob = try session("tasks.user-b")
        #expect(
            links.link(for: bob, authorizationURL: "https://as/authorize?state=3", expiresAt: 100, now: 2) != second
        )
        #expect(links.count == 2)
    }

    @Test func aLinkWhoseSignInIsNotPendingOpensNothingAndIsForgotten() async throws {
        let links = SignInLinks(redirectURI: "https://gw.example.com/oauth/callback")
        let alice = try session("tasks.user-a")  // never started: not waiting for the user
        let link = links.link(for: alice, authorizationURL: "https://as/authorize?state=1", expiresAt: 100, now: 0)
        let id = String(link.dropFirst("https://gw.example.com/oauth/sign-in/".count))
        #expect(await links.authorizationURL(for: id, now: 1) == nil)
        #expect(links.count == 0)
        #expect(await links.authorizationURL(for: "../../admin", now: 1) == nil)
        #expect(await links.authorizationURL(for: String(repeating: "A", count: 43), now: 1) == nil)
    }

    @Test func theTableIsBoundedDroppingTheSoonestToExpire() throws {
        let links = SignInLinks(redirectURI: "http://127.0.0.1:8750/oauth/callback")
        for index in 0..<SignInLinks.maxLinks {
            _ = links.link(
                for: try session("s.user-\(index)"),
                authorizationURL: "https://as/authorize?state=\(index)",
                expiresAt: Double(1000 + index),
                now: 0
            )
        }
        #expect(links.count == SignInLinks.maxLinks)
        let late = try session("s.user-late")
        _ = links.link(for: late, authorizationURL: "https://as/authorize?state=late", expiresAt: 5000, now: 0)
        #expect(links.count == SignInLinks.maxLinks)
    }
}
