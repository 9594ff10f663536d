import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import YrdenProtocol

/// A successful answer of the admin API.
struct AdminResponse: Sendable {
    var status: Int
    var body: [UInt8]

    /// The body as JSON; a body that is not JSON means the address is not a Yrden gateway.
    func json() throws(ClientFailure) -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            throw ClientFailure("the gateway's answer is not JSON (\(error))")
        }
    }
}

/// The admin API of one gateway (`openapi.yaml`): every request carries the token, and every failure comes
/// back as a ``ClientFailure`` worded for a person.
struct AdminClient: Sendable {
    let endpoint: GatewayEndpoint
    let http: HTTPClient

    /// How long a request may take; removing a server waits for it to stop, hence the margin.
    static let requestSeconds: Int64 = 60
    static let maxBodyBytes = 64 << 20

    /// A refused connection fails at once (a gateway that is not running is the common mistake), redirects
    /// are refused so the token never follows one, and there is no read timeout for the event stream.
    static let configuration: HTTPClient.Configuration = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(5))
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }()

    /// Runs `body` with a client that is shut down when it returns.
    static func run<Result>(
        _ endpoint: GatewayEndpoint,
        _ body: (AdminClient) async throws -> Result
    ) async throws -> Result {
        try await HTTPClient.withHTTPClient(configuration: configuration) { http in
            try await body(AdminClient(endpoint: endpoint, http: http))
        }
    }

    func get(_ path: String, query: [(String, String)] = []) async throws(ClientFailure) -> AdminResponse {
        try await send(.GET, path, query: query)
    }

    func post(_ path: String, json: JSONValue? = nil) async throws(ClientFailure) -> AdminResponse {
        try await send(.POST, path, body: json)
    }

    func delete(_ path: String) async throws(ClientFailure) -> AdminResponse {
        try await send(.DELETE, path)
    }

    func send(
        _ method: HTTPMethod,
        _ path: String,
        query: [(String, String)] = [],
        body: JSONValue? = nil
    ) async throws(ClientFailure) -> AdminResponse {
        var request = makeRequest(method, path, query: query, accept: "application/json")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(body.serialized())
        }
        let response = try await execute(request, deadline: .now() + .seconds(Self.requestSeconds))
        let bytes: [UInt8]
        do {
            bytes = Array(try await response.body.collect(upTo: Self.maxBodyBytes).readableBytesView)
        } catch {
            throw ClientFailure("the gateway's answer broke off (\(error))")
        }
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            throw ClientFailure.answer(status: status, body: bytes, from: endpoint)
        }
        return AdminResponse(status: status, body: bytes)
    }

    /// Sends `request`; a failure before any answer is reported as the gateway being unreachable.
    func execute(_ request: HTTPClientRequest, deadline: NIODeadline) async throws(ClientFailure) -> HTTPClientResponse
    {
        do {
            return try await http.execute(request, deadline: deadline)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw ClientFailure.timedOut(endpoint.baseURL, after: Int(Self.requestSeconds))
        } catch {
            throw ClientFailure.unreachable(endpoint.baseURL)
        }
    }

    func makeRequest(
        _ method: HTTPMethod,
        _ path: String,
        query: [(String, String)] = [],
        accept: String
    ) -> HTTPClientRequest {
        var url = endpoint.baseURL + path
        if !query.isEmpty {
            url += "?" + query.map { "\(URLText.encode($0.0))=\(URLText.encode($0.1))" }.joined(separator: "&")
        }
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Accept", value: accept)
        if let token = endpoint.token {
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
        }
        return request
    }

    /// The path of one server's resource, such as `/api/v1/servers/time/connect`.
    static func serverPath(_ id: String, _ action: String? = nil) -> String {
        let base = "/api/v1/servers/" + URLText.encode(id)
        return action.map { base + "/" + $0 } ?? base
    }
}

/// Percent-encoding of path segments and query values: everything but RFC 3986's unreserved characters.
enum URLText {
    static func encode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                output += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 0x0F)])"
            }
        }
        return output
    }
}
