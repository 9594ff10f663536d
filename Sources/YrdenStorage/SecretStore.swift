/// Named secrets (OAuth tokens, one per server), kept somewhere only the gateway can read.
///
/// Names are `[a-z0-9][a-z0-9_.-]*`, at most ``SecretName/maxLength`` characters, so that a name can be a file
/// name and can never climb out of the store's directory. Every implementation rejects other names the same way.
package protocol SecretStore: Sendable {
    /// The secret called `name`, or nil when there is none.
    func load(_ name: String) throws(StorageError) -> [UInt8]?
    /// Stores `bytes` as `name`, replacing any earlier value.
    func save(_ name: String, _ bytes: [UInt8]) throws(StorageError)
    /// Forgets `name`; removing a secret that does not exist is not an error.
    func remove(_ name: String) throws(StorageError)
}

/// The rule for secret names.
package enum SecretName {
    /// Leaves room in a 255-byte file name for the temporary-file prefix and suffix of ``AtomicFile``.
    package static let maxLength = 200

    /// Throws unless `name` is a valid secret name.
    package static func validate(_ name: String) throws(StorageError) {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, isLowercaseAlphanumeric(first), bytes.count <= maxLength,
            bytes.allSatisfy({
                isLowercaseAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
                    || $0 == UInt8(ascii: "-")
            })
        else {
            throw StorageError(
                .invalidName,
                message: "invalid secret name \"\(name)\"",
                fix: "use lowercase letters, digits, '_', '.' and '-', starting with a letter or digit, "
                    + "at most \(maxLength) characters"
            )
        }
    }

    private static func isLowercaseAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
