/// Bearer tokens (`gateway.adminToken`, `gateway.clientTokens`, a profile's `clientTokens`): a token that
/// cannot be resolved, or that a `${VAR}` turns into nothing, is a problem, never "no token". Read leniently,
/// a forgotten `export` would leave the admin API or `/mcp` open to anyone who can reach it.
extension JSONReader {
    /// The token with `${VAR}` expanded; an unset variable is reported (naming it) like anywhere outside a
    /// server entry. Empty is allowed only as written (`""`, where `empty` says what that means); a token that
    /// expands to empty is reported.
    func token(_ what: String, empty: String? = nil) -> String? {
        guard let text = string() else { return nil }
        guard text.isEmpty else { return text }
        let written = writtenString ?? ""
        if written.isEmpty, empty != nil { return text }
        if written.isEmpty {
            report("\(what) is empty", fix: "give it a value, or remove it")
        } else {
            // Only references and empty defaults make an empty text, so quoting what was written shows no secret.
            report(
                "\(what) \(written.quoted) expands to an empty token",
                fix: "set the variable to the token where the gateway runs"
                    + (empty.map { ", or \($0)" } ?? ", or remove the entry")
            )
        }
        return nil
    }

    /// A list of tokens, each read with ``token(_:empty:)``; `nil` when the value is not an array.
    func tokens(_ what: String) -> [String]? {
        guard let items = array() else { return nil }
        return items.compactMap { $0.token(what) }
    }
}
