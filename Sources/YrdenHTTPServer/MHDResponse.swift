import CMicroHTTPD

/// Turns an `HTTPResponse` into a libmicrohttpd response and queues it. Only valid inside an access-handler call.
enum MHDResponse {
    /// Streamed bodies are pulled in blocks of at most this size.
    private static let streamBlockSize = 16 << 10

    static func queue(_ response: HTTPResponse, on connection: OpaquePointer, for exchange: Exchange) -> MHD_Result {
        let created: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            // MUST_COPY: libmicrohttpd owns its copy; the Swift array may go away after this call.
            created = bytes.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(
                    raw.count,
                    UnsafeMutableRawPointer(mutating: raw.baseAddress),
                    .RESPMEM_MUST_COPY
                )
            }
        case .stream:
            // An unknown size makes libmicrohttpd use chunked encoding. The reader's reference to the exchange
            // is released by `streamReaderFree`.
            let context = Unmanaged.passRetained(exchange)
            created = MHD_create_response_from_callback(
                UInt64.max,
                streamBlockSize,
                streamReader,
                context.toOpaque(),
                streamReaderFree
            )
            if created == nil { context.release() }
        case .upgrade:
            // The socket reaches the exchange (this connection's `*con_cls`) through `upgradeHandler`.
            created = MHD_create_response_for_upgrade(upgradeHandler, nil)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for (name, value) in response.headers {
            // libmicrohttpd refuses the headers it manages itself (Content-Length, Transfer-Encoding: chunked
            // conflicts); those are computed anyway, so a refusal is not an error.
            // `withCString`, not the implicit conversion: that copies a short (inline) string to the heap.
            _ = name.withCString { name in value.withCString { MHD_add_response_header(created, name, $0) } }
        }
        let status = (100...999).contains(response.status) ? response.status : 500
        return MHD_queue_response(connection, UInt32(status), created)
    }
}
