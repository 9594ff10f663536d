import ArgumentParser

/// How every client command runs: with an ``AdminClient`` for the gateway `endpoint` names; a
/// ``ClientFailure`` is printed to stderr and ends the command with exit status 1.
enum ClientSession {
    static func run(_ endpoint: GatewayEndpoint, _ body: (AdminClient) async throws -> Void) async throws {
        do {
            try await AdminClient.run(endpoint, body)
        } catch let failure as ClientFailure {
            failure.report()
            throw ExitCode.failure
        }
    }
}

/// What goes to stdout.
enum Output {
    /// An answer of the API as it came, for `--json`, ending in a newline.
    static func write(_ body: [UInt8]) {
        print(String(decoding: body, as: UTF8.self), terminator: body.last == UInt8(ascii: "\n") ? "" : "\n")
    }
}
