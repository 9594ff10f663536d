import YrdenProtocol

extension RegistryServerJSON {
    /// The `server.json` at `path` (`yrden servers add --from`), read as a config file is (16 MiB at most), or
    /// the problem that stops it, placed by line and column when it is not JSON.
    package static func read(path: String) throws(RegistryEntryError) -> JSONValue {
        let bytes: [UInt8]
        switch ConfigFile.read(path: path) {
        case .success(let contents): bytes = contents
        case .failure(let finding):
            throw RegistryEntryError([ConfigProblem(path: "", message: finding.message, fix: finding.fix)])
        }
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw RegistryEntryError([ConfigLoader.parseProblem(error, in: bytes)])
        }
    }
}
