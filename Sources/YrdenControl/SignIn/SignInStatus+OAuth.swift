import YrdenEngine
import YrdenOAuth

extension SignInStatus {
    /// The engine's view of an OAuth session's progress, field for field as the admin API's `AuthProgress`.
    package init(_ progress: OAuthProgress) {
        switch progress {
        case .waitingForUser(let url, let expiresAt):
            self.init(status: progress.status, authorizationURL: url, expiresAt: expiresAt)
        default:
            self.init(status: progress.status, reason: progress.reason)
        }
    }

    /// The server log's line for this change: the authorization URL is shown (it carries no secret), tokens
    /// never are.
    package var summary: String {
        switch status {
        case "waitingForUser": "sign-in needed: open \(authorizationURL ?? "")"
        case "failed": "sign-in failed: \(reason ?? "")"
        case "needsReauth": "sign-in needed: \(reason ?? "")"
        default: "sign-in: \(status)"
        }
    }
}
