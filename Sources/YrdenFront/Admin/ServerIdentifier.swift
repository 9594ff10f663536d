/// The server id rule (`[a-z0-9][a-z0-9_-]{0,62}`, without the tool separator), for ids that arrive in a
/// path or a query parameter: one that breaks it cannot name a server, so it is answered without a lookup.
enum ServerIdentifier {
    static func isValid(_ id: String, separator: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (1...63).contains(bytes.count), isLowercaseOrDigit(bytes[0]) else { return false }
        let allowed = bytes.allSatisfy { isLowercaseOrDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
        return allowed && (separator.isEmpty || !id.contains(separator))
    }

    private static func isLowercaseOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
