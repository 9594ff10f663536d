import Crypto

/// Seals secrets with AES-256-GCM under the key given by `YRDEN_SECRET_KEY`.
///
/// A sealed file is `"YRDN"`, a format version byte (1), then the nonce, ciphertext and tag (AES-GCM's combined
/// representation: 12 + n + 16 bytes). The header and a caller-chosen context (the secret's name) are
/// authenticated too, so a sealed file copied over another secret's file fails to open instead of handing one
/// server's token to another. JSON text never starts with `Y`, so a plain token file is never taken for a sealed
/// one.
package struct SecretBox: Sendable {
    /// `"YRDN"`: marks a sealed file.
    static let magic: [UInt8] = Array("YRDN".utf8)
    /// The format version this build writes and reads.
    static let version: UInt8 = 1

    private let key: SymmetricKey

    /// The key from the `YRDEN_SECRET_KEY` text (see ``SecretKey``).
    package init(keyText: String) throws(StorageError) {
        key = try SecretKey.parse(keyText)
    }

    /// Whether `bytes` claim to be sealed (they start with the magic), whatever the version.
    package static func isSealed(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: magic)
    }

    /// The sealed form of `plaintext`, bound to `context`.
    package func seal(_ plaintext: [UInt8], context: String) throws(StorageError) -> [UInt8] {
        let header = Self.magic + [Self.version]
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.seal(plaintext, using: key, authenticating: header + Array(context.utf8))
        } catch {
            throw StorageError(.cannotEncrypt, message: "cannot encrypt \(context): \(error)", fix: "report this bug")
        }
        // Nil only for nonces of another size than AES-GCM's default, which `seal` always uses.
        guard let combined = box.combined else {
            throw StorageError(
                .cannotEncrypt,
                message: "cannot encrypt \(context): no combined form",
                fix: "report this bug"
            )
        }
        return header + Array(combined)
    }

    /// The plaintext of `sealed`, which must have been sealed with the same key and `context`; `source` names the
    /// file in errors.
    package func open(_ sealed: [UInt8], context: String, source: String) throws(StorageError) -> [UInt8] {
        let header = Self.magic + [Self.version]
        guard sealed.count > Self.magic.count else { throw Self.undecryptable(source) }
        let version = sealed[Self.magic.count]
        guard version == Self.version else {
            throw StorageError(
                .unsupportedFormat,
                message: "\(source) is sealed with format version \(version), which this yrden does not know",
                fix: "run the yrden version that wrote it, or remove the file and sign in again"
            )
        }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed[header.count...])
            let plaintext = try AES.GCM.open(box, using: key, authenticating: header + Array(context.utf8))
            return Array(plaintext)
        } catch {
            throw Self.undecryptable(source)
        }
    }

    private static func undecryptable(_ source: String) -> StorageError {
        StorageError(
            .cannotDecrypt,
            message: "cannot decrypt \(source): wrong YRDEN_SECRET_KEY or damaged file",
            fix: "set YRDEN_SECRET_KEY to the key it was written with, or remove the file and sign in again"
        )
    }
}
