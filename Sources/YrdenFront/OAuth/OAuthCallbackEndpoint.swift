import YrdenControl
import YrdenHTTPServer

/// `GET /oauth/callback`: where authorization servers send the browser back after a sign-in.
///
/// The flow named by `state` takes the code; the person in front of the browser gets a short page saying
/// what happened. A request that names no pending flow (unknown, used, expired or forged `state`) gets 400
/// and changes nothing.
struct OAuthCallbackEndpoint: Sendable {
    let signIns: SignInControl

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard request.method == "GET" else { return FrontResponses.methodNotAllowed("GET") }
        let result = await signIns.handleCallback(query: request.query)
        let (title, message): (String, String)
        switch result {
        case .signedIn(let server):
            title = "Signed in"
            message = "Yrden is now signed in to \(server). You can close this window."
        case .failed(let server, let reason):
            title = "Sign-in failed"
            // A user's own sign-in (`<id>.user-…`) is started again by their next call, not by an operator.
            let again =
                server.contains(".user-")
                ? "Call the tool again for a new sign-in link" : "Start it again with yrden login \(server)"
            message = "The sign-in to \(server) did not complete: \(reason). \(again)."
        case .rejected(let reason):
            title = "Sign-in link not valid"
            message = "\(reason). Nothing was changed; start the sign-in again to get a new link."
        }
        return HTTPResponse(
            status: result.httpStatus,
            headers: [
                ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
                ("Content-Security-Policy", "default-src 'none'"), ("Referrer-Policy", "no-referrer"),
            ],
            body: .bytes(Array(Self.page(title: title, message: message).utf8))
        )
    }

    /// A minimal page; everything from outside (server ids, reasons the authorization server wrote) is escaped.
    static func page(title: String, message: String) -> String {
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>Yrden: \(escape(title))</title></head>
        <body><h1>\(escape(title))</h1><p>\(escape(message))</p></body></html>

        """
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
