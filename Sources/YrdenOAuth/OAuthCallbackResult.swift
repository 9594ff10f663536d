/// What became of a browser's return to the callback, for the page (or admin API answer) shown to the user.
package enum OAuthCallbackResult: Sendable, Hashable {
    /// The code was exchanged: the server has tokens.
    case signedIn(serverID: String)
    /// The flow ended without tokens: the authorization server refused (`access_denied`), the response failed
    /// a check, or the exchange failed. The flow is over; a new sign-in is needed.
    case failed(serverID: String, reason: String)
    /// The request names no pending flow (unknown, already used or expired `state`, another server's flow)
    /// or is malformed. Nothing was changed.
    case rejected(reason: String)

    /// The HTTP status for the callback page: 400 for a request that changed nothing, else 200.
    package var httpStatus: Int {
        if case .rejected = self { return 400 }
        return 200
    }

    /// The server the flow belonged to, when the request named one.
    package var serverID: String? {
        switch self {
        case .signedIn(let serverID), .failed(let serverID, _): serverID
        case .rejected: nil
        }
    }
}
