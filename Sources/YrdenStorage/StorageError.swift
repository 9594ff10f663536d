/// Why a file or secret could not be read or written, said so that an operator can act on it.
///
/// Every error names the file or secret it concerns, what went wrong (with the errno reason for system calls) and
/// what to do about it. `kind` lets callers tell cases apart without parsing text, for example to answer an admin
/// API request with 400 for a bad name and 500 for a full disk.
package struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// A system call failed; carries its errno.
        case system(errno: Int32)
        /// The file is larger than the reader allows.
        case tooLarge
        /// A secret name outside `[a-z0-9][a-z0-9_.-]*`.
        case invalidName
        /// `YRDEN_SECRET_KEY` is set to something that cannot be used.
        case invalidKey
        /// Sealing failed; not expected with a valid key.
        case cannotEncrypt
        /// The file is sealed but the key does not open it, or it is damaged.
        case cannotDecrypt
        /// The file is sealed and no key is set.
        case keyRequired
        /// The file was sealed by a format this build does not know.
        case unsupportedFormat
        /// The file holds something other than what its reader keeps there.
        case malformed
        /// The shared store cannot take the write now (too many wait for it to come back).
        case unavailable
    }

    package var kind: Kind
    /// What is wrong, naming the file or secret.
    package var message: String
    /// What to change to make it right.
    package var fix: String

    package init(_ kind: Kind, message: String, fix: String) {
        self.kind = kind
        self.message = message
        self.fix = fix
    }

    /// `<message> — <fix>`, the shape ``ConfigProblem`` uses too.
    package var description: String { "\(message) — \(fix)" }
}
