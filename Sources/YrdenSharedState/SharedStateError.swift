/// What went wrong with the shared state, worded for an operator: which store, what happened, what to do.
package enum SharedStateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store's URL cannot be understood.
    case badLocation(String)
    /// The database cannot be reached or refused the credentials (at start: exit 2; later: 503).
    case unavailable(String)
    /// A compare-and-set lost: another replica wrote first; the caller reads again and decides.
    case versionChanged
    /// What is stored cannot be read by this build.
    case unreadable(String)

    package var description: String {
        switch self {
        case .badLocation(let message): message
        case .unavailable(let message): message
        case .versionChanged: "another replica changed it first"
        case .unreadable(let message): message
        }
    }
}
