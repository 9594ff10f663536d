/// The checks an MCPB bundle (a zip file) passes before anything of it is unpacked, read from its central
/// directory: a bounded number of entries and of unpacked bytes (no zip bomb), every name a plain relative path
/// inside the bundle's folder (no zip slip: no `..`, no absolute path, no backslash), no symbolic link, no
/// encryption, no zip64. Pure: the bytes are the downloaded file, already checked against its `fileSha256`.
package enum BundleZipCheck {
    /// Entries a bundle may hold.
    package static let maxEntries = 10_000
    /// Bytes a bundle may unpack to, in total.
    package static let maxUnpackedBytes = 512 << 20

    /// One file of the bundle as its directory lists it.
    package struct Entry: Sendable, Equatable {
        package var name: String
        package var unpackedBytes: Int
    }

    /// The entries of `zip`, or why it is refused.
    package static func entries(of zip: [UInt8]) throws(BundleZipError) -> [Entry] {
        guard let end = endRecord(zip) else {
            throw BundleZipError("it is not a zip file (no end of central directory)")
        }
        let count = Int(u16(zip, end + 10))
        let size = Int(u32(zip, end + 12))
        let start = Int(u32(zip, end + 16))
        guard count != 0xFFFF, size != 0xFFFF_FFFF, start != 0xFFFF_FFFF else {
            throw BundleZipError("it is a zip64 file, which bundles do not need")
        }
        guard count <= maxEntries else { throw BundleZipError("it holds \(count) entries, more than \(maxEntries)") }
        guard start + size <= end else { throw BundleZipError("its central directory lies outside the file") }
        var entries: [Entry] = []
        var total = 0
        var offset = start
        for _ in 0..<count {
            guard offset + 46 <= end, u32(zip, offset) == 0x0201_4b50 else {
                throw BundleZipError("its central directory is damaged")
            }
            let flags = u16(zip, offset + 8)
            let unpacked = u32(zip, offset + 24)
            let nameLength = Int(u16(zip, offset + 28))
            let extraLength = Int(u16(zip, offset + 30))
            let commentLength = Int(u16(zip, offset + 32))
            let madeBy = u16(zip, offset + 4) >> 8
            let external = u32(zip, offset + 38)
            guard offset + 46 + nameLength <= end else { throw BundleZipError("its central directory is damaged") }
            let name = String(decoding: zip[(offset + 46)..<(offset + 46 + nameLength)], as: UTF8.self)
            if flags & 1 != 0 { throw BundleZipError("\(name.quoted) is encrypted") }
            if unpacked == 0xFFFF_FFFF { throw BundleZipError("\(name.quoted) is a zip64 entry") }
            if let reason = unsafeName(name) { throw BundleZipError("\(name.quoted) \(reason)") }
            // Unix hosts keep the file's mode in the high half; 0o120000 is a symbolic link.
            if madeBy == 3, (external >> 16) & 0o170000 == 0o120000 {
                throw BundleZipError("\(name.quoted) is a symbolic link")
            }
            total += Int(unpacked)
            guard total <= maxUnpackedBytes else {
                throw BundleZipError("it unpacks to more than \(maxUnpackedBytes >> 20) MiB")
            }
            entries.append(Entry(name: name, unpackedBytes: Int(unpacked)))
            offset += 46 + nameLength + extraLength + commentLength
        }
        return entries
    }

    /// Why `name` could land outside the folder, or nil.
    static func unsafeName(_ name: String) -> String? {
        if name.isEmpty { return "is an empty name" }
        if name.hasPrefix("/") { return "is an absolute path" }
        if name.contains("\\") { return "holds a backslash" }
        if name.utf8.contains(0) { return "holds a NUL" }
        if name.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." }) {
            return "reaches outside the bundle's folder (..)"
        }
        return nil
    }

    /// Where the end-of-central-directory record starts: searched backwards over the comment it may carry.
    private static func endRecord(_ zip: [UInt8]) -> Int? {
        guard zip.count >= 22 else { return nil }
        let lowest = max(0, zip.count - 22 - 0xFFFF)
        var offset = zip.count - 22
        while offset >= lowest {
            if u32(zip, offset) == 0x0605_4b50 { return offset }
            offset -= 1
        }
        return nil
    }

    private static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(u16(bytes, at)) | UInt32(u16(bytes, at + 2)) << 16
    }
}

/// A bundle refused before unpacking, saying why.
package struct BundleZipError: Error, Sendable, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
