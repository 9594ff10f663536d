import YrdenControl
import YrdenHTTPServer

/// `GET /oauth/sign-in/<id>`: the gateway's own link to one user's pending sign-in to a `perUser` server, as
/// its calls were answered with. It answers 302 to the authorization server's URL of that sign-in while it is
/// pending, and 404 with a short page once it is over or for an id it never gave. Nothing secret is in either
/// answer (the authorization URL carries a PKCE challenge and a `state`, never a token), and neither is cached.
struct SignInLinkEndpoint: Sendable {
    static let prefix = "/oauth/sign-in/"

    let signIns: SignInControl

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else { return FrontResponses.methodNotAllowed("GET") }
        let id = String(request.path.dropFirst(Self.prefix.count))
        let headers = [("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")]
        if let url = await signIns.signInLink(id) {
            return HTTPResponse(status: 302, headers: HTTPHeaders(headers + [("Location", url)]))
        }
        let page = OAuthCallbackEndpoint.page(
            title: "Sign-in link not valid",
            message: "This sign-in link has expired or was already used. Call the tool again to get a new one."
        )
        return HTTPResponse(
            status: 404,
            headers: HTTPHeaders(
                headers + [
                    ("Content-Type", "text/html; charset=utf-8"), ("Content-Security-Policy", "default-src 'none'"),
                ]
            ),
            body: .bytes(Array(page.utf8))
        )
    }
}
