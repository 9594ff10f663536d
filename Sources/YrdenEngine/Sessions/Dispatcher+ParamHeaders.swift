import YrdenProtocol

/// 2026-07-28's `Mcp-Param-*` headers through the gateway: checked against the body of a client's
/// `tools/call` by the tool's public name, and computed anew for a 2026-07-28 HTTP upstream from the
/// upstream's own schema (the annotations are kept on re-exposed tools, so both are the same schema).
extension Dispatcher {
    /// The `x-mcp-header` annotations of a tool as its server lists it; `nil` for a tool without any.
    func paramHeaders(of route: Route, in snapshot: Snapshot) -> ParamHeaders? {
        snapshot.links[route.server]?.catalog?.paramHeaders[route.name]
    }

    /// -32020 when a client's `tools/call` comes with `Mcp-Param-*` headers that do not match its arguments
    /// (by the tool's `x-mcp-header` annotations); `nil` when they match, or the tool is unknown (the call
    /// itself then says so). `header` returns every value sent for a header name.
    func paramHeaderMismatch(
        _ call: JSONRPCRequest,
        scope: CatalogScope = .gateway,
        header: (String) -> [String]
    ) -> JSONRPCError? {
        guard call.method == MCPMethod.toolsCall, let name = call.params?["name"]?.stringValue else { return nil }
        let snapshot = self.snapshot
        guard let route = try? views.toolRoute(name, in: scope, snapshot),
            let annotations = paramHeaders(of: route, in: snapshot),
            let detail = annotations.mismatch(arguments: call.params?["arguments"], header: header)
        else { return nil }
        return .headerMismatch(detail)
    }

    /// The `Mcp-Param-*` headers of a `tools/call` of `route` with `arguments`, for a 2026-07-28 upstream.
    func paramHeaders(of route: Route, arguments: JSONValue?, in snapshot: Snapshot) -> [(name: String, value: String)]
    {
        paramHeaders(of: route, in: snapshot)?.headers(for: arguments) ?? []
    }
}
