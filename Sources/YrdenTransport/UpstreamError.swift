import YrdenProtocol

/// Why a request to an upstream did not get an answer from it.
///
/// This is the transport failing, never the upstream answering with a JSON-RPC error: that answer is data and
/// travels as a value. The `kind` is a bounded set, safe as a metric label and shown by the admin API.
package struct UpstreamError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case network
        case http
        case `protocol`
        case timeout
        case process
        case auth
        case cancelled
        case notConnected
        /// The server's config entry cannot be used where the gateway runs (an unset `${VAR}`); never started.
        case config
    }

    package var kind: Kind
    package var message: String
    package var httpStatus: Int?

    /// `message` is shown by `/healthz`, the admin API and the logs, so the credentials of any URL in it (a
    /// password in its user info, a `?token=`) are hidden here, whoever wrote the message.
    package init(_ kind: Kind, _ message: String, httpStatus: Int? = nil) {
        self.kind = kind
        self.message = URLCredentials.scrubbing(message, mark: Self.hiddenMark)
        self.httpStatus = httpStatus
    }

    /// What stands in for a hidden credential, as the admin API shows one.
    package static let hiddenMark = "********"

    package var description: String { message }
}
