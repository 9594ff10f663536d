/// A ``ToolFilter`` made ready to judge many names: plain names in sets, each pattern split at its `*` once.
///
/// A profile's filter is matched against every tool of the catalog whenever a server's tools change; splitting
/// each of 41 patterns again for each of 10,000 tools took seconds. Answers exactly as
/// ``ToolFilter/permits(_:)`` does; names of plain ASCII (nearly all tool names) are compared byte by byte,
/// others as ``ToolFilter/permits(_:)`` compares them (by `Character`).
package struct ToolFilterMatcher: Sendable {
    private let allowsAll: Bool
    private let allowedNames: Set<String>
    private let allowedPatterns: NamePatterns
    private let deniedNames: Set<String>
    private let deniedPatterns: NamePatterns

    package init(_ filter: ToolFilter) {
        allowsAll = filter.allow == nil
        allowedNames = Set((filter.allow ?? []).filter { !$0.contains("*") })
        allowedPatterns = NamePatterns((filter.allow ?? []).filter { $0.contains("*") })
        deniedNames = Set(filter.deny.filter { !$0.contains("*") })
        deniedPatterns = NamePatterns(filter.deny.filter { $0.contains("*") })
    }

    /// What ``ToolFilter/permits(_:)`` answers for `name`.
    package func permits(_ name: String) -> Bool {
        if !allowsAll, !allowedNames.contains(name), !allowedPatterns.matchAny(name) { return false }
        return !deniedNames.contains(name) && !deniedPatterns.matchAny(name)
    }
}

/// Patterns with at least one `*`, each split into the runs between them. The runs of simple patterns are
/// kept as bytes in one array, so matching a name against all of them allocates and retains nothing.
private struct NamePatterns: Sendable {
    /// Every simple pattern's runs, one after another.
    private var bytes: [UInt8] = []
    /// Every simple pattern's runs, as ranges of ``bytes``.
    private var runs: [Range<Int>] = []
    /// Each simple pattern, as a range of ``runs``.
    private var patterns: [Range<Int>] = []
    /// The patterns that are not simple, as ``ToolFilter/matches(_:_:)`` takes them.
    private var others: [[Substring]] = []
    /// The simple ones the same way, for a name that is not simple.
    private var simpleParts: [[Substring]] = []

    init(_ patterns: [String]) {
        for pattern in patterns {
            let parts = pattern.split(separator: "*", omittingEmptySubsequences: false)
            guard Self.isSimple(pattern) else {
                others.append(parts)
                continue
            }
            simpleParts.append(parts)
            let firstRun = runs.count
            for part in parts {
                let start = bytes.count
                bytes += part.utf8
                runs.append(start..<bytes.count)
            }
            self.patterns.append(firstRun..<runs.count)
        }
    }

    /// ASCII without a carriage return: each byte is one `Character` (CR LF is one), so comparing bytes is
    /// comparing `Character`s.
    static func isSimple(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D }
    }

    func matchAny(_ name: String) -> Bool {
        if others.contains(where: { ToolFilter.matches($0, name) }) { return true }
        guard !patterns.isEmpty else { return false }
        guard Self.isSimple(name) else { return simpleParts.contains { ToolFilter.matches($0, name) } }
        var name = name
        return name.withUTF8 { name in
            bytes.withUnsafeBufferPointer { bytes in
                runs.withUnsafeBufferPointer { runs in
                    patterns.contains { Self.matches(runs[$0], bytes, name) }
                }
            }
        }
    }

    /// The first run at the start, each middle run at its leftmost place after the one before, the last run
    /// at the end of what is left: the rule of ``ToolFilter/matches(_:_:)``.
    private static func matches(
        _ runs: UnsafeBufferPointer<Range<Int>>.SubSequence,
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ name: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard let first = runs.first, let last = runs.last, name.count >= first.count,
            name[0..<first.count].elementsEqual(bytes[first])
        else { return false }
        var start = first.count
        for run in runs.dropFirst().dropLast() where !run.isEmpty {
            guard let found = firstIndex(of: bytes[run], in: name, from: start) else { return false }
            start = found + run.count
        }
        return name.count - start >= last.count && name[(name.count - last.count)...].elementsEqual(bytes[last])
    }

    private static func firstIndex(
        of run: UnsafeBufferPointer<UInt8>.SubSequence,
        in name: UnsafeBufferPointer<UInt8>,
        from start: Int
    ) -> Int? {
        guard name.count - start >= run.count, let head = run.first else { return nil }
        for index in start...(name.count - run.count) where name[index] == head {
            if name[index..<(index + run.count)].elementsEqual(run) { return index }
        }
        return nil
    }
}
