import Foundation
import Testing

@testable import YrdenStorage

@Suite struct SecretStoreTests {
    let token = bytes(#"{"access_token":"gho_s3cr3t-value"}"#)

    @Test func plainStoreRoundTripsWithPrivateModes() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let directory = scratch.file("data/secrets")
        let store = try FileSecretStore(directory: directory, key: nil)
        #expect(try permissions(directory) == 0o700)
        #expect(try permissions(scratch.file("data")) == 0o700)
        #expect(try store.load("github") == nil)
        try store.save("github", token)
        #expect(try store.load("github") == token)
        #expect(try permissions(directory + "/github") == 0o600)
        #expect(try AtomicFile.read(directory + "/github") == token)
        #expect(try scratch.entries("data/secrets") == ["github"])
    }

    @Test func existingDirectoryIsUsedAsItIs() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        chmod(scratch.path, 0o750)
        let store = try FileSecretStore(directory: scratch.path + "/", key: nil)
        try store.save("a", token)
        #expect(try permissions(scratch.path) == 0o750)
        #expect(try scratch.entries() == ["a"])
    }

    @Test func directoryThatIsAFileIsAnError() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try AtomicFile.write([], to: scratch.file("file"), mode: 0o600)
        let error = #expect(throws: StorageError.self) {
            try FileSecretStore(directory: scratch.file("file"), key: nil)
        }
        #expect(error?.message == "cannot use \(scratch.file("file")) as the secrets directory: it is not a directory")
    }

    @Test func encryptedStoreKeepsNoPlaintextOnDisk() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try FileSecretStore(directory: scratch.path, key: SecretBox(keyText: TestKey.hex))
        try store.save("github", token)
        let onDisk = try #require(try AtomicFile.read(scratch.file("github")))
        #expect(SecretBox.isSealed(onDisk))
        #expect(onDisk != token)
        #expect(String(decoding: onDisk, as: UTF8.self).contains("gho_s3cr3t") == false)
        #expect(try permissions(scratch.file("github")) == 0o600)
        #expect(try store.load("github") == token)
    }

    @Test func plainFileIsReadWithAKeyAndSealedOnTheNextSave() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try FileSecretStore(directory: scratch.path, key: nil).save("github", token)
        let keyed = try FileSecretStore(directory: scratch.path, key: SecretBox(keyText: TestKey.hex))
        #expect(try keyed.load("github") == token)
        try keyed.save("github", token)
        #expect(SecretBox.isSealed(try #require(try AtomicFile.read(scratch.file("github")))))
        #expect(try keyed.load("github") == token)
    }

    @Test func sealedFileWithoutAKeySaysToSetIt() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try FileSecretStore(directory: scratch.path, key: SecretBox(keyText: TestKey.hex)).save("github", token)
        let error = #expect(throws: StorageError.self) {
            try FileSecretStore(directory: scratch.path, key: nil).load("github")
        }
        #expect(error?.kind == .keyRequired)
        #expect(error?.message == "\(scratch.file("github")) is encrypted and YRDEN_SECRET_KEY is not set")
    }

    @Test func wrongKeyOrSwappedFileDoesNotOpen() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try FileSecretStore(directory: scratch.path, key: SecretBox(keyText: TestKey.hex))
        try store.save("github", token)
        let other = try FileSecretStore(directory: scratch.path, key: SecretBox(keyText: "a different key"))
        let error = #expect(throws: StorageError.self) { try other.load("github") }
        #expect(error?.description.contains("wrong YRDEN_SECRET_KEY or damaged file") == true)
        // One server's sealed token copied over another's file is refused, not handed to the other server.
        try FileManager.default.copyItem(atPath: scratch.file("github"), toPath: scratch.file("gitlab"))
        #expect(throws: StorageError.self) { try store.load("gitlab") }
    }

    @Test func removeForgetsAndIsIdempotent() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try FileSecretStore(directory: scratch.path, key: nil)
        try store.save("github", token)
        try store.remove("github")
        #expect(try store.load("github") == nil)
        try store.remove("github")
        #expect(try scratch.entries() == [])
    }

    @Test(arguments: ["", "../escape", "..", ".hidden", "-dash", "_under", "Upper", "a/b", "a b", "é", "a:b"])
    func invalidNamesAreRejectedByBothStores(name: String) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let stores: [any SecretStore] = [
            try FileSecretStore(directory: scratch.file("secrets"), key: nil), InMemorySecretStore(),
        ]
        for store in stores {
            let error = #expect(throws: StorageError.self) { try store.save(name, token) }
            #expect(error?.kind == .invalidName)
            #expect(throws: StorageError.self) { try store.load(name) }
            #expect(throws: StorageError.self) { try store.remove(name) }
        }
        #expect(try scratch.entries() == ["secrets"])
        #expect(try scratch.entries("secrets") == [])
    }

    @Test func nameRule() throws {
        for name in ["github", "0", "a.b_c-d", "oauth.my-server_2", String(repeating: "a", count: 200)] {
            #expect(throws: Never.self) { try SecretName.validate(name) }
        }
        #expect(throws: StorageError.self) { try SecretName.validate(String(repeating: "a", count: 201)) }
    }

    @Test func longestNameStillFitsBesideItsTemporaryFile() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try FileSecretStore(directory: scratch.path, key: nil)
        let name = String(repeating: "n", count: SecretName.maxLength)
        try store.save(name, token)
        #expect(try store.load(name) == token)
    }

    @Test func inMemoryTwinBehavesLikeTheFileStore() throws {
        let store = InMemorySecretStore()
        #expect(try store.load("github") == nil)
        try store.save("github", token)
        try store.save("gitlab", bytes("x"))
        #expect(try store.load("github") == token)
        #expect(store.names == ["github", "gitlab"])
        try store.remove("github")
        try store.remove("github")
        #expect(store.names == ["gitlab"])
    }
}
