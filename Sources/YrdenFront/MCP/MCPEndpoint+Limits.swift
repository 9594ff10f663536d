import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

extension MCPEndpoint {
    /// A stateless request's JSON answer with the status its era gives it; when its call was refused by a limit
    /// (the whole request is refused), 429 with `Retry-After` in whole seconds, as HTTP clients and proxies
    /// understand it (the exact wait is in the error's `data.retryAfterSeconds`).
    static func statelessAnswer(_ response: JSONRPCResponse) -> HTTPResponse {
        guard case .failure(let error) = response.outcome, error.code == RateLimited.code,
            let seconds = error.data?["retryAfterSeconds"]?.doubleValue
        else {
            return FrontResponses.jsonRPC(status(of: response), .response(response))
        }
        let retryAfter = max(1, Int(seconds.rounded(.up)))
        return FrontResponses.jsonRPC(429, .response(response), headers: ["Retry-After": String(retryAfter)])
    }
}
