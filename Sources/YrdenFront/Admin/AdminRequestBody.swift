import YrdenHTTPServer
import YrdenProtocol

/// A request's JSON body: the media type it must be sent as (415 otherwise) and the JSON itself (400 otherwise).
enum AdminRequestBody {
    static let json = "application/json"
    static let mergePatch = "application/merge-patch+json"

    /// The body of `request` as JSON, when it was sent as `mediaType` (parameters such as `charset=utf-8` are
    /// fine); otherwise the problem to answer.
    static func parse(_ request: HTTPRequest, as mediaType: String) -> Result<JSONValue, AdminProblem> {
        let contentType = request.headers["Content-Type"]
        guard Self.mediaType(of: contentType) == mediaType else {
            return .failure(.unsupportedMediaType(contentType, expected: mediaType))
        }
        do {
            return .success(try JSONValue.parse(request.body))
        } catch {
            return .failure(.invalidJSON(error))
        }
    }

    /// `type/subtype` of a Content-Type value, lowercased, without parameters; `nil` for none.
    static func mediaType(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        let type = contentType.prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" }.lowercased()
        return type.isEmpty ? nil : type
    }
}
