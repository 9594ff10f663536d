import YrdenProtocol

/// What a session keeps of the `clientInfo` a client sent with `initialize`.
///
/// The client chooses its size; a session lives for up to the idle timeout, so keeping it whole would let ten
/// `initialize` calls hold a hundred megabytes. Only the identifying strings are kept, each cut to a length no
/// real client name reaches.
enum ClientIdentity {
    static let keptFields = ["name", "title", "version"]
    static let maxFieldLength = 256

    /// The kept part of `clientInfo`: its identifying strings, shortened; anything else is dropped.
    static func kept(from clientInfo: JSONValue?) -> JSONValue {
        var kept = JSONObject()
        for field in keptFields {
            guard let text = clientInfo?[field]?.stringValue else { continue }
            kept[field] = .string(text.count > maxFieldLength ? String(text.prefix(maxFieldLength)) + "…" : text)
        }
        return .object(kept)
    }
}
