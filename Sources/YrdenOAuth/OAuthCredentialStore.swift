import YrdenProtocol
import YrdenStorage

/// Tokens and client registrations per server, in a ``SecretStore`` (files of mode 0600, sealed with AES-GCM
/// when the gateway has a key, written atomically).
///
/// Names are `oauth.<server>.tokens` and `oauth.<server>.client`; server ids are valid secret names, so the
/// names are too. A file that cannot be understood (another version, damaged) counts as absent: the way out
/// is a new sign-in, which overwrites it. A file that cannot be read at all (a missing key) is an error.
struct OAuthCredentialStore: Sendable {
    var secrets: any SecretStore
    var serverID: String

    var tokensName: String { "oauth.\(serverID).tokens" }
    var clientName: String { "oauth.\(serverID).client" }
    /// The lock replicas sharing the tokens refresh them under (``OAuthReplicaStore``).
    var refreshLockName: String { "oauth.\(serverID).refresh" }

    func loadTokens() throws(OAuthError) -> OAuthTokens? {
        guard let document = try load(tokensName) else { return nil }
        return OAuthTokens(document: document)
    }

    func saveTokens(_ tokens: OAuthTokens) throws(OAuthError) {
        try save(tokensName, tokens.document)
    }

    func removeTokens() throws(OAuthError) {
        try remove(tokensName)
    }

    func loadRegistration() throws(OAuthError) -> ClientRegistration? {
        guard let document = try load(clientName) else { return nil }
        return ClientRegistration(document: document)
    }

    func saveRegistration(_ registration: ClientRegistration) throws(OAuthError) {
        try save(clientName, registration.document)
    }

    func removeRegistration() throws(OAuthError) {
        try remove(clientName)
    }

    private func load(_ name: String) throws(OAuthError) -> JSONValue? {
        let bytes: [UInt8]?
        do {
            bytes = try secrets.load(name)
        } catch {
            throw OAuthError(.storage, "cannot read the stored OAuth state of \(serverID): \(error)")
        }
        return bytes.flatMap { try? JSONValue.parse($0) }
    }

    private func save(_ name: String, _ document: JSONValue) throws(OAuthError) {
        do {
            try secrets.save(name, document.serialized())
        } catch {
            throw OAuthError(.storage, "cannot store the OAuth state of \(serverID): \(error)")
        }
    }

    private func remove(_ name: String) throws(OAuthError) {
        do {
            try secrets.remove(name)
        } catch {
            throw OAuthError(.storage, "cannot remove the stored OAuth state of \(serverID): \(error)")
        }
    }
}
