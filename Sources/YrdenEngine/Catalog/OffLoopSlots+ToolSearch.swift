import YrdenExecution
import YrdenProtocol
import YrdenTransport

extension OffLoopSlots {
    /// The slots of tool searches: 4 at once (a 64-term search over 20,000 tools takes tens of milliseconds,
    /// which the event loop must not spend), 64 waiting at most 5 s on the gateway's clock, the rest refused with
    /// a busy error instead of piling up.
    static func toolSearches() -> OffLoopSlots { OffLoopSlots(running: 4, waiting: 64, patience: .seconds(5)) }
}

extension TimeSource {
    /// A wait of a slot's patience on this clock (the gateway's injected one, so tests run on `TestClock`).
    var slotSleep: OffLoopSlots.Sleep { { [self] in try await sleep(until: now + $0) } }
}

extension OffLoopSlots.Refusal {
    /// The error a client of a tool search sees: the search did not run, and why.
    var rpcError: JSONRPCError {
        let why =
            switch self {
            case .lineFull(let waiting): "\(waiting) searches wait already"
            case .waitedTooLong(let limit): "no turn came within \(limit)"
            case .cancelled: "the request was cancelled"
            }
        return JSONRPCError(code: -32000, message: "the gateway is busy searching tools (\(why)); try again shortly")
    }
}
