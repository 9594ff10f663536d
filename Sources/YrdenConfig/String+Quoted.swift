import YrdenProtocol

extension String {
    /// The string as a JSON literal, for quoting values in problem messages exactly as they appear in the file.
    var quoted: String { JSONValue.string(self).jsonText }
}
