import Logging
import YrdenConfig
import YrdenControl
import YrdenEngine

/// Where tool pins are kept: `tool-pins.json` in the data directory (see ``LoadedConfig/dataDirectory``), or
/// memory when there is none.
struct ToolPinSetup {
    let loaded: LoadedConfig
    let logger: Logger

    /// The pins saved by earlier runs. A file that cannot be read stops the start while pinning is on:
    /// starting without it would pin changed tools afresh, unnoticed. While pinning is off it is left alone.
    func toolPins(shared: SharedState? = nil) throws -> ToolPins {
        let mode = loaded.config.security.toolPinning
        if let shared {
            let store = SharedToolPinStore(documents: shared.pins)
            return ToolPins(mode: mode, store: store, book: try store.load())
        }
        guard let directory = loaded.dataDirectory else {
            if mode != .off {
                logger.warning(
                    "no data directory (set --data-dir or YRDEN_DATA_DIR): tool pins will not survive a restart"
                )
            }
            return ToolPins(mode: mode)
        }
        let store = try FileToolPinStore(directory: directory)
        let book: PinBook
        do {
            book = try store.load()
        } catch  where mode == .off {
            logger.warning("the saved tool pins cannot be read; pinning is off", metadata: ["reason": "\(error)"])
            book = PinBook()
        }
        return ToolPins(mode: mode, store: store, book: book)
    }
}
