import YrdenConsole
import YrdenHTTPServer

/// What every embedded file is served with: its type (never sniffed), revalidation on each use, no referrer.
enum StaticFileHeaders {
    static func common(_ file: ConsoleFile) -> HTTPHeaders {
        [
            "Content-Type": file.mediaType,
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-cache",
            "ETag": file.entityTag,
            "Referrer-Policy": "no-referrer",
        ]
    }

    /// The file, or 304 when the browser's copy is current (the files change only with the binary).
    static func answer(_ file: ConsoleFile, headers: HTTPHeaders, request: HTTPRequest) -> HTTPResponse {
        if let cached = request.headers["If-None-Match"],
            cached.split(separator: ",").contains(where: { $0.trimmingWhitespace() == file.entityTag })
        {
            return HTTPResponse(status: 304, headers: headers)
        }
        return HTTPResponse(status: 200, headers: headers, body: .bytes(file.bytes))
    }
}
