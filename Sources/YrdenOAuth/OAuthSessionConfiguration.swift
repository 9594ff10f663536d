import Crypto

/// What one server's OAuth needs to know, mapped from its config entry by the engine.
package struct OAuthSessionConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The server id; names the stored files and every flow.
    package var serverID: String
    /// The MCP endpoint, e.g. `https://tasks.example.com/mcp`. Tokens are sent only to this origin.
    package var serverURL: String
    /// Where the authorization server sends the browser back: the gateway's `/oauth/callback`.
    package var redirectURI: String
    /// Scopes to ask for besides those the server's challenges name (`auth.scopes`).
    package var scopes: [String]
    /// A pre-registered client (`auth.clientId`); nil registers dynamically.
    package var clientID: String?
    package var clientSecret: String?
    /// The `client_name` of a dynamic registration, shown to users on the consent page.
    package var clientName: String
    /// The gateway's client ID metadata document (`auth.clientMetadataURL`): used as the client_id at an
    /// authorization server that advertises `client_id_metadata_document_supported`, ahead of registering.
    package var clientMetadataURL: String?

    package init(
        serverID: String,
        serverURL: String,
        redirectURI: String,
        scopes: [String] = [],
        clientID: String? = nil,
        clientSecret: String? = nil,
        clientName: String = "Yrden MCP gateway",
        clientMetadataURL: String? = nil
    ) {
        self.serverID = serverID
        self.serverURL = serverURL
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientName = clientName
        self.clientMetadataURL = clientMetadataURL
    }

    /// The server id one user's own sign-in to server `server` is stored and shown under (`perUser`):
    /// `<server>.user-<16 hex>`, the first 8 bytes of the user's SHA-256, since a user name may hold characters
    /// a secret's name may not, and need not show in file names.
    package static func perUserID(server: String, user: String) -> String {
        let digest = SHA256.hash(data: Array(user.utf8)).prefix(8)
        return server + ".user-" + digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Everything but the client secret.
    package var description: String {
        "OAuthSessionConfiguration(\(serverID), \(serverURL), redirect \(redirectURI), client "
            + "\(clientID ?? "dynamic")\(clientSecret == nil ? "" : " with secret <redacted>"))"
    }
}
