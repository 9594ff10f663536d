import CMicroHTTPD

// The C callbacks libmicrohttpd calls on its own threads. They only translate between C and `Exchange` /
// `ServerCore`; none of them waits for Swift work (the only waiting is for an exchange's short lock).
// They must not live in a `main.swift`, whose top-level code Swift 6 treats as main-actor isolated.

/// Every call for every request. `*conCls` holds the request's `Exchange` (retained) from the first call until
/// `requestCompleted` releases it.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, conCls in
    guard let cls, let connection, let uploadSize, let conCls else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()

    guard let context = conCls.pointee else {
        // First call: only the headers are known.
        let exchange = Exchange(
            connection: ConnectionHandle(raw: connection),
            maxBodyBytes: core.maxBodyBytes,
            loop: core.loopWaker
        )
        conCls.pointee = Unmanaged.passRetained(exchange).toOpaque()
        if let refusal = exchange.begin(declaredLength: MHDRequest.declaredLength(connection)) {
            core.connections.requestHandedOver(connection)
            return MHDResponse.queue(refusal, on: connection, for: exchange)
        }
        return .YES
    }
    let exchange = Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue()

    if uploadSize.pointee > 0 {
        // A piece of the body; libmicrohttpd may deliver a large body in dozens of pieces.
        let piece = UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee)
        uploadSize.pointee = 0
        return exchange.receive(piece) ? .YES : .NO
    }

    // From here the request is the server's: no request deadline, and the connection may be suspended.
    core.connections.requestHandedOver(connection)
    switch exchange.finalCall() {
    case .dispatch(let body):
        // The connection is suspended now; a handler task resumes it once it has answered.
        var request = MHDRequest.read(connection, url: url, method: method, body: body)
        if !core.trustedProxies.isEmpty {
            request.peer = ForwardedClient.resolve(
                peer: request.peer,
                forwardedFor: request.headers.values(for: ForwardedClient.header),
                trusting: core.trustedProxies
            )
        }
        core.dispatch(IncomingRequest(request: request, exchange: exchange))
        return .YES
    case .queue(let response):
        return MHDResponse.queue(response, on: connection, for: exchange)
    case .close:
        return .NO
    }
}

/// The end of a request (sent, failed, client gone, daemon stopping): releases the exchange from `*conCls`.
let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, conCls, _ in
    guard let cls, let conCls, let context = conCls.pointee else { return }
    conCls.pointee = nil
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    if let connection { core.connections.requestFinished(connection) }
    let exchange = Unmanaged<Exchange>.fromOpaque(context).takeRetainedValue()
    exchange.complete()
    core.completed(exchange)
}

/// A connection was accepted or is about to be closed (its socket is still open during the call).
let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, event in
    guard let cls, let connection else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    if event == .CONNECTION_NOTIFY_STARTED {
        core.connections.opened(connection, socket: yrden_mhd_connection_fd(connection))
    } else if event == .CONNECTION_NOTIFY_CLOSED {
        core.connections.closed(connection)
    }
}

/// Pulls the next bytes of a streamed body; suspends the connection while there are none.
let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, capacity in
    guard let cls, let buffer else { return -2 }
    let exchange = Unmanaged<Exchange>.fromOpaque(cls).takeUnretainedValue()
    return exchange.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity))
}

/// libmicrohttpd is done with a streamed response: releases the reference `streamReader`'s `cls` held.
let streamReaderFree: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<Exchange>.fromOpaque(cls).release()
}

/// The head of a `101` answer was sent: the socket is handed to the exchange (the connection's `*con_cls`),
/// whose handler task runs the upgrade's closure. libmicrohttpd keeps the connection suspended until the
/// socket is closed through ``UpgradedSocket/close()``. Runs on libmicrohttpd's thread and does not block.
let upgradeHandler: MHD_UpgradeHandler = { _, _, conCls, extraIn, extraInSize, socket, urh in
    guard let conCls, let urh else { return }
    let exchange = Unmanaged<Exchange>.fromOpaque(conCls).takeUnretainedValue()
    let leftover: [UInt8] =
        if let extraIn, extraInSize > 0 {
            Array(UnsafeRawBufferPointer(start: extraIn, count: extraInSize))
        } else {
            []
        }
    exchange.upgraded(socket: socket, leftover: leftover, handle: UpgradeHandle(raw: urh))
}
