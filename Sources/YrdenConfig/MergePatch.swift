import YrdenProtocol

/// JSON Merge Patch (RFC 7396), which is what a PATCH of a server entry carries.
///
/// Chosen over JSON Patch because an operator can write it by hand: the patch looks like the part of the entry
/// it changes. Its one limit is that it cannot set a value to `null`, and a config never needs to.
extension JSONValue {
    /// This value with `patch` applied: `null` members remove, objects merge member by member, anything else
    /// replaces. Members keep their place; new ones go at the end.
    package func mergePatched(with patch: JSONValue) -> JSONValue {
        guard case .object(let changes) = patch else { return patch }
        var result = objectValue ?? JSONObject()
        for (key, change) in changes {
            if change == .null {
                while case .some = result[key] { result[key] = nil }
            } else {
                result[key] = (result[key] ?? .null).mergePatched(with: change)
            }
        }
        return .object(result)
    }
}
