/// Secrets as files in one directory: mode 0600 in a directory created 0700, each written atomically, and sealed
/// with AES-GCM when a key is given.
///
/// Without a key files hold the bytes as they are. With a key, writes are sealed, and reads accept both sealed
/// files and plain ones, so setting `YRDEN_SECRET_KEY` later keeps existing tokens (each is sealed the next time
/// it is saved). A sealed file read without a key is an error that says to set the key, never garbage.
package struct FileSecretStore: SecretStore {
    /// Tokens are a few kilobytes; anything far bigger is not a secret this store wrote.
    static let maxBytes = 1024 * 1024

    package let directory: String
    private let box: SecretBox?

    /// Uses `directory`, creating it (and missing parents) with mode 0700; `key` seals the files when set.
    package init(directory: String, key: SecretBox?) throws(StorageError) {
        try PrivateDirectory.create(directory)
        self.directory = directory
        self.box = key
    }

    /// Whether saved secrets are encrypted.
    package var isEncrypted: Bool { box != nil }

    /// The file that holds `name`.
    package func path(of name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    package func load(_ name: String) throws(StorageError) -> [UInt8]? {
        try SecretName.validate(name)
        let path = path(of: name)
        guard let bytes = try AtomicFile.read(path, maxBytes: Self.maxBytes) else { return nil }
        guard SecretBox.isSealed(bytes) else { return bytes }
        guard let box else {
            throw StorageError(
                .keyRequired,
                message: "\(path) is encrypted and YRDEN_SECRET_KEY is not set",
                fix: "set YRDEN_SECRET_KEY to the key it was written with, or remove the file and sign in again"
            )
        }
        return try box.open(bytes, context: name, source: path)
    }

    package func save(_ name: String, _ bytes: [UInt8]) throws(StorageError) {
        try SecretName.validate(name)
        let contents = try box?.seal(bytes, context: name) ?? bytes
        try AtomicFile.write(contents, to: path(of: name), mode: 0o600)
    }

    package func remove(_ name: String) throws(StorageError) {
        try SecretName.validate(name)
        try AtomicFile.remove(path(of: name))
    }
}
