import YrdenProtocol

/// The pin book as saved between runs:
/// `{"version": 1, "servers": {"<server>": {"<tool>": {"pinned": {…}, "pinnedAt": …, "pending": {…},
/// "changedAt": …, "unlistedAt": …}}}}`, each definition as its pinned fields. Digests are not saved but
/// computed again from the definitions when read, so an edited file cannot pass one definition off as another.
extension PinBook {
    package static let formatVersion = 1

    package var json: JSONValue {
        var serverObject = JSONObject()
        // A definition the store can no longer read is left out (`writePrettyJSON` fails instead).
        for server in servers.keys.sorted() { serverObject[server] = .object((try? savedPinsJSON(of: server)) ?? [:]) }
        return ["version": .int(Self.formatVersion), "servers": .object(serverObject)]
    }

    /// ``json`` as indented text, handed to `emit` in pieces of about `pieceBytes`: one server's pins are
    /// built at a time, so saving 10,000 pins never holds their whole tree or text (megabytes each, kept by
    /// the allocator after the save).
    ///
    /// Throws when a definition kept in the store can no longer be read: the save then fails rather than
    /// write a book without it.
    package func writePrettyJSON(pieceBytes: Int = 64 * 1024, _ emit: ([UInt8]) -> Void) throws {
        var stream = PrettyJSONStream()
        stream.openObject()
        stream.member("version", .int(Self.formatVersion))
        stream.openObject("servers")
        for server in servers.keys.sorted() {
            stream.openObject(server)
            for (tool, pin) in servers[server] ?? ServerPins() {
                stream.openObject(tool)
                try Self.write(pin.pinned, as: "pinned", into: &stream)
                stream.member("pinnedAt", .double(pin.pinnedAt))
                if let pending = pin.pending { try Self.write(pending, as: "pending", into: &stream) }
                if let changedAt = pin.changedAt { stream.member("changedAt", .double(changedAt)) }
                if let unlistedAt = pin.unlistedAt { stream.member("unlistedAt", .double(unlistedAt)) }
                stream.closeObject()
            }
            stream.closeObject()
            if stream.pendingBytes >= pieceBytes { emit(stream.take()) }
        }
        stream.closeObject()
        stream.closeObject()
        emit(stream.take())
    }

    /// A definition kept in the store is copied as the store holds it, never parsed: a save after a restart
    /// would otherwise build the tree of every definition not listed again yet.
    private static func write(
        _ definition: ToolDefinition,
        as key: String,
        into stream: inout PrettyJSONStream
    ) throws {
        if let text = try definition.storedText() {
            stream.member(key, text: text)
        } else {
            stream.member(key, definition.json)
        }
    }

    /// One server's pins, with the definitions kept in the store read from it, failing when one cannot be.
    private func savedPinsJSON(of server: String) throws -> JSONObject {
        var toolObject = JSONObject()
        for (tool, pin) in servers[server] ?? ServerPins() {
            var entry: JSONObject = ["pinned": try pin.pinned.savedJSON(), "pinnedAt": .double(pin.pinnedAt)]
            if let pending = pin.pending { entry["pending"] = try pending.savedJSON() }
            if let changedAt = pin.changedAt { entry["changedAt"] = .double(changedAt) }
            if let unlistedAt = pin.unlistedAt { entry["unlistedAt"] = .double(unlistedAt) }
            toolObject[tool] = .object(entry)
        }
        return toolObject
    }

    /// Reads a saved book; throws naming the first thing that is not as ``json`` writes it.
    package init(json: JSONValue) throws(PinBookFormatError) {
        guard json["version"]?.intValue == Self.formatVersion else {
            throw PinBookFormatError("its version is not \(Self.formatVersion)")
        }
        guard let serverObject = json["servers"]?.objectValue else {
            throw PinBookFormatError("it has no \"servers\" object")
        }
        var servers: [String: [String: Pin]] = [:]
        for (server, tools) in serverObject {
            guard let toolObject = tools.objectValue else {
                throw PinBookFormatError("servers.\(server) is not an object")
            }
            var pins: [String: Pin] = [:]
            for (tool, entry) in toolObject {
                pins[tool] = try Self.pin(entry, at: "servers.\(server).\(tool)")
            }
            servers[server] = pins
        }
        self.init(servers: servers)
    }

    private static func pin(_ entry: JSONValue, at path: String) throws(PinBookFormatError) -> Pin {
        guard let pinned = entry["pinned"]?.objectValue, let pinnedAt = entry["pinnedAt"]?.doubleValue else {
            throw PinBookFormatError("\(path) lacks \"pinned\" or \"pinnedAt\"")
        }
        var pin = Pin(pinned: ToolDefinition(tool: pinned), pinnedAt: pinnedAt)
        if let pending = entry["pending"] {
            guard let object = pending.objectValue else { throw PinBookFormatError("\(path).pending is not an object") }
            pin.pending = ToolDefinition(tool: object)
            pin.changedAt = entry["changedAt"]?.doubleValue ?? pinnedAt
        }
        pin.unlistedAt = entry["unlistedAt"]?.doubleValue
        return pin
    }
}

/// A saved pin book that cannot be read as one.
package struct PinBookFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    package var description: String

    init(_ description: String) {
        self.description = description
    }
}
