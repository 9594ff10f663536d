import Logging
import NIOSSL
import PostgresNIO
import YrdenProtocol

/// Where the shared state lives: a `postgres://user:password@host:port/database?sslmode=…` URL, taken apart.
///
/// Parsed by hand because the rules are few and the errors must name what is wrong (the URL itself is never
/// repeated: it holds the password). `sslmode` follows libpq's names: `disable`, `prefer` (the default, as with
/// libpq) and `require`; `verify-full` is `require` with the certificate checked against the system's roots.
package struct PostgresLocation: Sendable, Equatable {
    package enum TLSMode: String, Sendable {
        case disable, prefer, require
        case verifyFull = "verify-full"
    }

    package var host: String
    package var port: Int
    package var user: String
    package var password: String?
    package var database: String
    package var tls: TLSMode

    /// `host:port/database`, for log lines and errors: never the user's password.
    package var description: String { "\(host):\(port)/\(database)" }

    /// Parses `url`; the error says which part is wrong and how a right one looks.
    package init(url: String) throws(SharedStateError) {
        let example = "postgres://USER:${PGPASSWORD}@HOST:5432/DATABASE"
        func bad(_ what: String) -> SharedStateError {
            .badLocation("\(what); write it as \(example)")
        }
        var rest = Substring(url)
        let scheme = ["postgres://", "postgresql://"].first { url.lowercased().hasPrefix($0) }
        guard let scheme else { throw bad("the store URL's scheme must be postgres://") }
        rest = rest.dropFirst(scheme.count)
        var query = Substring("")
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let at = rest.lastIndex(of: "@") else { throw bad("the store URL names no user (USER@HOST)") }
        let credentials = rest[..<at]
        let server = rest[rest.index(after: at)...]
        if let colon = credentials.firstIndex(of: ":") {
            user = try Self.percentDecoded(credentials[..<colon], part: "user")
            password = try Self.percentDecoded(credentials[credentials.index(after: colon)...], part: "password")
        } else {
            user = try Self.percentDecoded(credentials, part: "user")
            password = nil
        }
        guard !user.isEmpty else { throw bad("the store URL's user is empty") }
        guard let slash = server.firstIndex(of: "/") else {
            throw bad("the store URL names no database (HOST/DATABASE)")
        }
        database = try Self.percentDecoded(server[server.index(after: slash)...], part: "database")
        guard !database.isEmpty else { throw bad("the store URL's database is empty") }
        var hostPort = server[..<slash]
        port = 5432
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw bad("the store URL's IPv6 host has no ]") }
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") { port = try Self.port(after.dropFirst(), bad: bad) }
            hostPort = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
        } else if let colon = hostPort.lastIndex(of: ":") {
            port = try Self.port(hostPort[hostPort.index(after: colon)...], bad: bad)
            hostPort = hostPort[..<colon]
        }
        host = String(hostPort)
        guard !host.isEmpty else { throw bad("the store URL's host is empty") }
        tls = .prefer
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0] == "sslmode" else {
                throw .badLocation("the store URL's option \"\(pair.prefix(40))\" is unknown; only sslmode= is read")
            }
            guard let mode = TLSMode(rawValue: String(parts[1])) else {
                throw .badLocation(
                    "sslmode must be disable, prefer, require or verify-full, not \"\(parts[1].prefix(20))\""
                )
            }
            tls = mode
        }
    }

    private static func port(_ text: Substring, bad: (String) -> SharedStateError) throws(SharedStateError) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw bad("the store URL's port must be a number from 1 to 65535")
        }
        return port
    }

    /// `%XX` escapes decoded, so a password may hold `@`, `:` or `/`.
    private static func percentDecoded(_ text: Substring, part: String) throws(SharedStateError) -> String {
        guard let decoded = PercentDecoding.decode(text.utf8) else {
            throw .badLocation(
                "the store URL's \(part) has a % that is not followed by two hex digits, or is not UTF-8 once decoded"
            )
        }
        return decoded
    }

    /// The client's configuration: connecting is bounded, and a few connections are enough for what is
    /// written (admin changes, sign-ins, approvals), never for requests.
    func clientConfiguration() -> PostgresClient.Configuration {
        let tlsSetting: PostgresClient.Configuration.TLS
        switch tls {
        case .disable: tlsSetting = .disable
        case .prefer: tlsSetting = .prefer(Self.unverified)
        case .require: tlsSetting = .require(Self.unverified)
        case .verifyFull: tlsSetting = .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host,
            port: port,
            username: user,
            password: password,
            database: database,
            tls: tlsSetting
        )
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.maximumConnections = 6
        configuration.options.connectionIdleTimeout = .seconds(60)
        return configuration
    }
}

extension PostgresLocation {
    /// The same settings for one connection of its own (the change feed's).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let pooled = clientConfiguration()
        let tls: PostgresConnection.Configuration.TLS
        switch self.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: Self.unverified))
        case .require: tls = .require(try NIOSSLContext(configuration: Self.unverified))
        case .verifyFull: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: host,
            port: port,
            username: pooled.username,
            password: pooled.password,
            database: pooled.database,
            tls: tls
        )
        configuration.options.connectTimeout = .seconds(3)
        return configuration
    }

    static var unverified: TLSConfiguration {
        var client = TLSConfiguration.makeClientConfiguration()
        client.certificateVerification = .none
        return client
    }
}
