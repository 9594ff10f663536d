/// The web console's files, embedded in the binary at build time (the `EmbedConsoleFiles` plugin reads `www/`).
///
/// Files are named flat (`app.js`, not `js/app.js`), so a name is the whole address below `/console/`.
package enum ConsoleFiles {
    /// Every file by name, with its media type and validator, prepared once.
    package static let byName: [String: ConsoleFile] = embedded.reduce(into: [:]) { files, entry in
        files[entry.key] = ConsoleFile(name: entry.key, text: entry.value)
    }

    package static func file(named name: String) -> ConsoleFile? {
        byName[name]
    }
}

/// One embedded file as served: bytes, media type and an entity tag that changes with the content.
package struct ConsoleFile: Sendable {
    package let name: String
    package let bytes: [UInt8]
    package let mediaType: String
    /// A strong validator (`"…"`), so a browser revalidating an unchanged file gets a 304 without the body.
    package let entityTag: String

    init(name: String, text: String) {
        self.name = name
        bytes = Array(text.utf8)
        mediaType = Self.mediaType(forName: name)
        entityTag = "\"" + Self.digest(bytes) + "\""
    }

    package static func mediaType(forName name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }

    /// FNV-1a, 64 bits: a cache validator, not a security boundary.
    package static func digest(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
