import CMicroHTTPD

/// Reads a request's parts out of a libmicrohttpd connection. Only valid inside an access-handler call.
enum MHDRequest {
    static func read(
        _ connection: OpaquePointer,
        url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?,
        body: [UInt8]
    ) -> HTTPRequest {
        // Counted first, so the fields are stored at their size rather than grown one reallocation at a time.
        var headers = HTTPHeaders(capacity: Int(MHD_get_connection_values_n(connection, .HEADER_KIND, nil, nil)))
        withUnsafeMutablePointer(to: &headers) { headers in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, collectHeader, headers)
        }
        var query: [String: String] = [:]
        withUnsafeMutablePointer(to: &query) { query in
            _ = MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, collectArgument, query)
        }
        return HTTPRequest(
            method: method.map { String(cString: $0) } ?? "GET",
            path: url.map { String(cString: $0) } ?? "/",
            query: query,
            headers: headers,
            body: body,
            peer: PeerAddress(yrden_mhd_client_address(connection))
        )
    }

    /// The `Content-Length` the client declared, if any and well-formed.
    static func declaredLength(_ connection: OpaquePointer) -> Int? {
        let raw = "Content-Length".withCString { MHD_lookup_connection_value(connection, .HEADER_KIND, $0) }
        guard let raw else { return nil }
        return Int(String(cString: raw))
    }

    fileprivate static func string(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
        guard let pointer, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}

private let collectHeader: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
    let headers = context!.assumingMemoryBound(to: HTTPHeaders.self)
    headers.pointee.add(name: MHDRequest.string(key, keySize), value: MHDRequest.string(value, valueSize))
    return .YES
}

private let collectArgument: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
    let query = context!.assumingMemoryBound(to: [String: String].self)
    let name = MHDRequest.string(key, keySize)
    if query.pointee[name] == nil {
        query.pointee[name] = MHDRequest.string(value, valueSize)
    }
    return .YES
}
