import YrdenProtocol

/// Percent-encoding for query strings and `application/x-www-form-urlencoded` bodies.
///
/// Encoding keeps only RFC 3986's unreserved characters and escapes every other byte, so a value containing
/// `&`, `=`, `+` or a space can never change the meaning of a parameter list. Decoding reads `+` as a space, as
/// HTML forms and authorization servers' redirects use it.
enum FormEncoding {
    /// `value` with every byte outside `A–Z a–z 0–9 - . _ ~` written as `%XX`.
    static func encode(_ value: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            if isUnreserved(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `name=value&…` with both sides encoded, in the order given.
    static func encode(_ parameters: [(String, String)]) -> String {
        parameters.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    /// The parameters of a query string or form body, in order; a parameter without `=` has the value `""`.
    /// Nil when an escape is malformed or decodes to invalid UTF-8.
    static func decode(_ query: some StringProtocol) -> [(String, String)]? {
        var parameters: [(String, String)] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decodeComponent(parts[0]),
                let value = parts.count > 1 ? decodeComponent(parts[1]) : ""
            else { return nil }
            parameters.append((name, value))
        }
        return parameters
    }

    /// One percent-encoded component, with `+` as a space.
    static func decodeComponent(_ text: some StringProtocol) -> String? {
        PercentDecoding.decode(text.utf8, plusIsSpace: true)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
