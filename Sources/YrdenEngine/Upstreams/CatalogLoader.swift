import YrdenProtocol
import YrdenTransport

/// Lists everything an upstream offers, following its pagination, for the kinds its capabilities declare.
struct CatalogLoader: Sendable {
    let client: UpstreamClient
    let capabilities: JSONObject
    let timeout: Duration
    /// Tools whose `x-mcp-header` annotations are invalid are dropped (and `log` says so): what a
    /// 2026-07-28 HTTP client must do, since it could not send their headers.
    var dropsInvalidParamHeaders = false
    var log: @Sendable (String) -> Void = { _ in }
    /// Each page read is a CLIENT span of its own when tracing is on.
    var spans: OwnRequestSpans?

    /// A server that paginates forever is cut off here rather than looping the gateway.
    static let maxPages = 1000
    /// More items of one kind than any real server offers; a server that lists more fails to connect rather
    /// than filling the gateway's memory.
    static let maxItems = 100_000

    func loadAll() async throws(UpstreamError) -> ServerCatalog {
        var catalog = ServerCatalog()
        for kind in ServerCatalog.Kind.allCases {
            try await load(kind, into: &catalog)
        }
        return catalog
    }

    /// One kind's whole list, and its cache hint, into `catalog`.
    func load(_ kind: ServerCatalog.Kind, into catalog: inout ServerCatalog) async throws(UpstreamError) {
        let (items, hint) = try await loadPages(kind)
        catalog[kind] = kept(items, of: kind)
        catalog.cacheHints[kind] = hint
    }

    private func kept(_ items: [JSONObject], of kind: ServerCatalog.Kind) -> [JSONObject] {
        guard kind == .tools, dropsInvalidParamHeaders else { return items }
        return items.filter { tool in
            guard case .failure(let problem) = ParamHeaders.read(tool["inputSchema"]) else { return true }
            log("dropped tool \(tool["name"]?.stringValue ?? "?"): \(problem)")
            return false
        }
    }

    /// The pages' items, and the first page's cache hint (all pages of a list share one scope).
    private func loadPages(
        _ kind: ServerCatalog.Kind
    ) async throws(UpstreamError) -> (items: [JSONObject], hint: CacheHint?) {
        guard capabilities[kind.capability] != nil else { return ([], nil) }
        var items: [JSONObject] = []
        var hint: CacheHint?
        var cursor: JSONValue?
        for _ in 0..<Self.maxPages {
            let params: JSONValue? = cursor.map { ["cursor": $0] }
            switch try await request(kind.method, params: params) {
            case .success(let result):
                if cursor == nil { hint = result.objectValue.flatMap(CacheHint.init(result:)) }
                items += (result[kind.resultKey]?.arrayValue ?? []).compactMap(\.objectValue)
                guard items.count <= Self.maxItems else {
                    throw UpstreamError(
                        .protocol,
                        "\(kind.method) listed more than \(Self.maxItems) items, more than the gateway takes"
                    )
                }
                guard let next = result["nextCursor"], next.stringValue.map({ !$0.isEmpty }) ?? false else {
                    return (items, hint)
                }
                cursor = next
            case .failure(let error) where error.code == -32601 && kind == .resourceTemplates:
                return (items, hint)  // Some servers declare resources but not templates.
            case .failure(let error):
                throw UpstreamError(.protocol, "\(kind.method) failed: \(error.message)")
            }
        }
        return (items, hint)
    }

    /// One page's request, in a span when tracing is on.
    private func request(
        _ method: String,
        params: JSONValue?
    ) async throws(UpstreamError) -> Result<
        JSONValue, JSONRPCError
    > {
        var options = RequestOptions(timeout: timeout)
        guard let spans else { return try await client.request(method, params: params, options: options) }
        let span = spans.start(method)
        var params = params
        OwnRequestSpans.stamp(&params, &options, with: span)
        let answer: Result<JSONValue, JSONRPCError>
        do throws(UpstreamError) {
            answer = try await client.request(method, params: params, options: options)
        } catch {
            spans.end(span, failure: error)
            throw error
        }
        spans.end(span, answer)
        return answer
    }
}
