/// Why a client command failed, worded for the person at the terminal: printed to stderr, then exit 1.
struct ClientFailure: Error, Sendable, CustomStringConvertible {
    /// The first line says what went wrong (printed after `error: `); further lines are details, one per field
    /// problem.
    var lines: [String]
    /// The HTTP status when the gateway answered with an error, so a caller can fall back on a 404.
    var status: Int?

    init(_ lines: [String], status: Int? = nil) {
        self.lines = lines
        self.status = status
    }

    init(_ message: String, status: Int? = nil) {
        self.init([message], status: status)
    }

    var description: String { lines.joined(separator: "\n") }

    static func unreachable(_ baseURL: String) -> ClientFailure {
        ClientFailure("cannot reach the gateway at \(baseURL): is `yrden serve` running?")
    }

    static let unauthorized = ClientFailure(
        "the gateway needs an admin token: pass --token or set YRDEN_ADMIN_TOKEN",
        status: 401
    )

    static func timedOut(_ baseURL: String, after seconds: Int) -> ClientFailure {
        ClientFailure("the gateway at \(baseURL) did not answer within \(seconds) s")
    }

    static let tokenRefused = ClientFailure(
        "the gateway refused the admin token: check --token or YRDEN_ADMIN_TOKEN against the gateway's adminToken",
        status: 401
    )

    static func notAGateway(_ baseURL: String) -> ClientFailure {
        ClientFailure(
            "no Yrden admin API at \(baseURL)/api/v1 (HTTP 404): --url takes the gateway's own address, such as "
                + "\(GatewayEndpoint.defaultURL), not its /mcp endpoint",
            status: 404
        )
    }

    /// An error answer from `endpoint`: 401 as the token hint (missing or refused), a 404 that is not the admin
    /// API's own problem document as a wrong address, anything else as its problem document says.
    static func answer(status: Int, body: [UInt8], from endpoint: GatewayEndpoint) -> ClientFailure {
        if status == 401 { return endpoint.token == nil ? unauthorized : tokenRefused }
        let report = ProblemReport(status: status, body: body)
        if status == 404, !report.isProblemDocument { return notAGateway(endpoint.baseURL) }
        return ClientFailure(report.lines, status: status)
    }

    func report() {
        var standardError = StandardError()
        for (index, line) in lines.enumerated() {
            print(index == 0 ? "error: \(line)" : line, to: &standardError)
        }
    }
}
