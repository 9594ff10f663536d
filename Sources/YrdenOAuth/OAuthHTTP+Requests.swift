import YrdenProtocol

/// The request shapes OAuth uses, with errors that say which URL failed and how.
extension OAuthHTTP {
    /// GETs a JSON document. Nil for any answer but a 200 with a JSON object (a 404, a redirect, an HTML page):
    /// discovery then tries the next URL. Throws only when the URL cannot be reached at all.
    func fetchJSONObject(_ url: String) async throws(OAuthError) -> (status: Int, document: JSONValue?) {
        let response = try await perform(
            OAuthHTTPRequest(method: "GET", url: url, headers: [("Accept", "application/json")])
        )
        guard response.status == 200, let document = try? JSONValue.parse(response.body), document.objectValue != nil
        else { return (response.status, nil) }
        return (response.status, document)
    }

    /// POSTs `document` as JSON.
    func postJSON(_ url: String, _ document: JSONValue) async throws(OAuthError) -> OAuthHTTPResponse {
        try await perform(
            OAuthHTTPRequest(
                method: "POST",
                url: url,
                headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
                body: document.serialized()
            )
        )
    }

    /// POSTs `fields` as `application/x-www-form-urlencoded`, with any extra headers (client authentication).
    func postForm(
        _ url: String,
        _ fields: [(String, String)],
        headers: [(name: String, value: String)] = []
    ) async throws(OAuthError) -> OAuthHTTPResponse {
        try await perform(
            OAuthHTTPRequest(
                method: "POST",
                url: url,
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
                    + headers,
                body: Array(FormEncoding.encode(fields).utf8)
            )
        )
    }

    private func perform(_ request: OAuthHTTPRequest) async throws(OAuthError) -> OAuthHTTPResponse {
        do {
            return try await send(request)
        } catch {
            throw OAuthError(.network, "cannot reach \(request.url): \(error)")
        }
    }
}

/// The `error` and `error_description` of an OAuth error answer (RFC 6749 §5.2, RFC 7591 §3.2.2), as one
/// readable phrase, e.g. `invalid_grant (the refresh token expired)`; nil when the body is no such answer.
func oauthErrorSummary(_ body: [UInt8]) -> String? {
    guard let answer = oauthError(body) else { return nil }
    return answer.description.map { "\(answer.code) (\($0))" } ?? answer.code
}

/// The `error` code and `error_description` of an OAuth error answer, cleaned for display.
func oauthError(_ body: [UInt8]) -> (code: String, description: String?)? {
    guard let document = try? JSONValue.parse(body), let error = document["error"]?.stringValue else { return nil }
    let code = printable(error, limit: 64)
    guard let description = document["error_description"]?.stringValue, !description.isEmpty else {
        return (code, nil)
    }
    return (code, printable(description, limit: 300))
}

/// `text` cut to `limit` characters with control characters removed: authorization servers' words end up in
/// logs, the admin API and the callback page, and must not forge lines or run on forever.
func printable(_ text: String, limit: Int) -> String {
    let cleaned = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
    return cleaned.count > limit ? String(cleaned.prefix(limit)) + "…" : cleaned
}
