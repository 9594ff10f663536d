import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// Where a client command finds the gateway's admin API, and the token it presents there.
struct GatewayEndpoint: Sendable {
    static let defaultURL = "http://127.0.0.1:8750"

    /// The base URL without a trailing slash, such as `http://127.0.0.1:8750`.
    var baseURL: String
    var token: String?

    /// The flag if given, else the environment (`YRDEN_URL`, `YRDEN_ADMIN_TOKEN`), else the default address
    /// without a token. An empty variable counts as unset.
    static func resolve(url: String?, token: String?) throws(ValidationError) -> GatewayEndpoint {
        let chosenURL = url ?? environment("YRDEN_URL") ?? defaultURL
        let scheme = ["http://", "https://"].first { chosenURL.lowercased().hasPrefix($0) }
        guard let scheme, chosenURL.count > scheme.count else {
            throw ValidationError("the gateway URL must start with http:// or https://, such as \(defaultURL)")
        }
        var base = Substring(chosenURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        for endpointPath in ["/mcp", "/api/v1"] where base.lowercased().hasSuffix(endpointPath) {
            let address = base.dropLast(endpointPath.count)
            throw ValidationError(
                "the gateway URL is its own address, without \(endpointPath): use \(address) instead of \(chosenURL)"
            )
        }
        let chosenToken = token ?? environment("YRDEN_ADMIN_TOKEN")
        return GatewayEndpoint(baseURL: String(base), token: chosenToken?.isEmpty == true ? nil : chosenToken)
    }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}
