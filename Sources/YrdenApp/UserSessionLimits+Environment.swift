import YrdenEngine

extension UserSessionLimits {
    /// The limits, with `YRDEN_USER_SESSIONS` (1–4,096) replacing how many users' own sessions a `perUser`
    /// server of the handshake era keeps open; anything else there leaves the default (256).
    static func from(environment: [String: String]) -> UserSessionLimits {
        var limits = UserSessionLimits()
        if let text = environment["YRDEN_USER_SESSIONS"], let value = Int(text), (1...4096).contains(value) {
            limits.maxUsers = value
        }
        return limits
    }
}
