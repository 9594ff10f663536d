import YrdenProtocol

/// The environment variables the gateway's own secrets come from, which no child process may inherit.
///
/// The gateway's secrets are the ones it uses itself: `gateway.adminToken`, `gateway.clientTokens`, each
/// profile's `clientTokens`, the store's URL (`store.postgres`, which holds the database's password), and for
/// each remote server its `headers`, `auth.clientSecret` and the credentials in its `url`. A stdio server's `env` values are not among them: they are meant for children, and often pass on ordinary variables
/// (`${PATH}:/opt/bin`). A server that needs one of these variables passes it on in its own `env`
/// (`"GITHUB_TOKEN": "${GITHUB_TOKEN}"`), which overrides what is withheld.
extension ConfigDocument {
    package var secretVariables: Set<String> {
        var texts: [String] = []
        if case .object(let gateway) = root["gateway"] {
            texts += [gateway["adminToken"]?.stringValue].compactMap { $0 }
            texts += gateway["clientTokens"]?.arrayValue?.compactMap(\.stringValue) ?? []
            texts += [gateway["auth"]?["introspection"]?["clientSecret"]?.stringValue].compactMap { $0 }
        }
        texts += [root["store"]?["postgres"]?.stringValue].compactMap { $0 }
        for name in profileNames {
            texts += profileEntry(name)?["clientTokens"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        for id in serverIDs {
            guard let entry = entry(id) else { continue }
            texts += entry["headers"]?.objectValue?.compactMap { $0.value.stringValue } ?? []
            texts += [entry["auth"]?["clientSecret"]?.stringValue].compactMap { $0 }
            texts += entry["url"]?.stringValue.map(URLCredentials.credentials(in:)) ?? []
        }
        return Set(texts.flatMap(EnvironmentReferences.names(in:)))
    }
}
