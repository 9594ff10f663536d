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

}
