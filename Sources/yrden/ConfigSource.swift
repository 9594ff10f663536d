import Logging
import YrdenApp
import YrdenConfig

#if canImport(Glibc)
import Glibc
#endif

/// Where `serve` gets its config, and the process facts config expansion may use.
enum ConfigSource {
    static let defaultFile = "yrden.json"

    /// `--config` if given, else `./yrden.json` if present, else the embedded default. Changes made over the
    /// admin API go back to the file; on the embedded default they go to `./yrden.json`, which the next
    /// `yrden serve` in the same directory then loads.
    static func resolve(path: String?, environment: [String: String]) throws(ConfigError) -> LoadedConfig {
        let file = path ?? (access(defaultFile, F_OK) == 0 ? defaultFile : nil)
        guard let file else {
            return try LoadedConfig(
                document: .embeddedDefault,
                source: "embedded default",
                path: defaultFile,
                environment: environment
            )
        }
        return try LoadedConfig(
            document: ConfigLoader.loadDocument(path: file),
            source: file,
            path: file,
            environment: environment
        )
    }

    /// Logs, once at start, what the file holds that the gateway will not act on (hosts' keys it ignores), as
    /// `yrden check-config` prints it; servers that cannot start say so themselves when they fail.
    static func logNotices(of loaded: LoadedConfig, logger: Logger) {
        let checked = try? loaded.document.checked(environment: loaded.environment, source: "")
        for notice in checked?.notices ?? [] {
            logger.notice("config: \(notice)")
        }
    }

    static func report(_ error: ConfigError) {
        var standardError = StandardError()
        print(error.description, to: &standardError)
    }
}

enum ConfigEnvironment {
    /// The process environment, plus `YRDEN_EXECUTABLE`: this binary's own path, so the embedded default can
    /// start `yrden demo-server` wherever the binary lives.
    static func current() -> [String: String] {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        if environment["YRDEN_EXECUTABLE"] == nil, let path = executablePath() {
            environment["YRDEN_EXECUTABLE"] = path
        }
        return environment
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var bytes = Array(string.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
