import YrdenProtocol

/// A JSON value together with where it is, which reports what is wrong with it instead of throwing.
///
/// Each accessor returns the typed value, or `nil` after recording a problem that names the expected and the
/// found type at this path. Decoding code can therefore read every field in turn and still end up with the
/// complete list of problems. Strings expand `${VAR}` on the way out; keys never do.
struct JSONReader {
    let value: JSONValue
    let path: JSONPath
    let context: DecodingContext

    func report(_ message: String, fix: String) {
        context.report(path, message, fix: fix)
    }

    func mismatch(expected: String) {
        let fix: String
        switch value {
        case .string where expected.contains("number"):
            fix = "write the number without quotes (${VAR} expands only inside strings)"
        case .int where expected == "a string", .double where expected == "a string",
            .bool where expected == "a string":
            fix = "put the value in double quotes"
        default:
            fix = "replace it with \(expected)"
        }
        report("expected \(expected), found \(value.typeName)", fix: fix)
    }

    /// The string with `${VAR}` expanded; an unset variable is a problem.
    /// Inside a server entry, a reference that cannot be resolved is collected by the context (see
    /// ``DecodingContext``) and the text as written is returned.
    func string() -> String? {
        guard case .string(let raw) = value else {
            mismatch(expected: "a string")
            return nil
        }
        let (text, findings) = EnvironmentExpansion.expand(raw, environment: context.environment)
        if !findings.isEmpty, findings.allSatisfy({ $0.unresolvedReference != nil }),
            context.deferUnresolved(findings, at: path)
        {
            // The server will not start, so the value is never used; the text as written stands in for it.
            return raw
        }
        for finding in findings { report(finding) }
        return findings.isEmpty ? text : nil
    }

    /// A string that must not be empty after expansion; `what` names it in the problem ("command").
    func nonEmptyString(_ what: String) -> String? {
        guard let text = string() else { return nil }
        guard !text.isEmpty else {
            report("\(what) is empty", fix: "give \(what) a value, or remove the key")
            return nil
        }
        return text
    }

    /// The string as written in the file, before expansion: what problem messages may quote without
    /// revealing a secret that came from the environment.
    var writtenString: String? { value.stringValue }

    func bool() -> Bool? {
        guard case .bool(let flag) = value else {
            mismatch(expected: "true or false")
            return nil
        }
        return flag
    }

    /// A whole number within `range`. A number outside it, however large (`9223372036854775807`, `1e30`), is
    /// reported naming the field and the range, so that no later arithmetic on it can overflow.
    func integer(in range: ClosedRange<Int>, fix: String? = nil) -> Int? {
        guard let number = value.doubleValue else {
            mismatch(expected: "a number")
            return nil
        }
        let rangeFix = fix ?? "use a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard number.isFinite, number == number.rounded() else {
            report("expected a whole number, found \(value.jsonText)", fix: rangeFix)
            return nil
        }
        guard let whole = value.intValue, range.contains(whole) else {
            report(
                "\(fieldName) \(value.jsonText) is out of range (\(range.lowerBound) to \(range.upperBound))",
                fix: rangeFix
            )
            return nil
        }
        return whole
    }

    /// What a problem calls this value: the key it sits under (`maxBodyBytes`), or "the value" for an array item.
    var fieldName: String {
        if case .key(let key) = path.components.last { return key }
        return "the value"
    }

    /// The longest duration a config may state; far beyond any sensible timeout, and far from overflowing
    /// `Duration`.
    static let maxSeconds = 31_536_000
    /// The shortest: one millisecond. Anything shorter rounds to no time at all and would fail every request.
    static let minSeconds = 0.001

    /// A number of seconds from ``minSeconds`` to ``maxSeconds``, fractions allowed (`0.5`).
    func seconds() -> Duration? {
        guard let number = value.doubleValue else {
            mismatch(expected: "a number of seconds")
            return nil
        }
        guard number >= Self.minSeconds, number <= Double(Self.maxSeconds) else {
            report(
                "\(fieldName) \(value.jsonText) s is out of range (\(Self.minSeconds) to \(Self.maxSeconds) seconds)",
                fix:
                    "use a number of seconds from \(Self.minSeconds) (one millisecond) to \(Self.maxSeconds) (one year)"
            )
            return nil
        }
        if let whole = value.intValue { return .seconds(whole) }
        return .nanoseconds(Int64((number * 1_000_000_000).rounded()))
    }

    func array() -> [JSONReader]? {
        guard case .array(let items) = value else {
            mismatch(expected: "an array")
            return nil
        }
        return items.enumerated().map { index, item in
            JSONReader(value: item, path: path.appending(index: index), context: context)
        }
    }

    /// An array of strings; items of the wrong type are reported and left out.
    func stringArray() -> [String]? {
        array()?.compactMap { $0.string() }
    }

    /// An object with a fixed set of keys; unknown and duplicate keys are reported, hosts' keys accepted.
    func object(known keys: [String], hostKeys: HostKeys = .none) -> ObjectReader? {
        guard case .object(let object) = value else {
            mismatch(expected: "an object")
            return nil
        }
        return ObjectReader(object: object, reader: self, known: keys, hostKeys: hostKeys)
    }

    /// An object used as a map (server ids, environment, headers): any key, each once, in document order.
    func entries() -> [(key: String, reader: JSONReader)]? {
        guard case .object(let object) = value else {
            mismatch(expected: "an object")
            return nil
        }
        var seen: Set<String> = []
        var result: [(key: String, reader: JSONReader)] = []
        for (key, item) in object {
            let child = JSONReader(value: item, path: path.appending(key: key), context: context)
            guard seen.insert(key).inserted else {
                child.reportDuplicate(key)
                continue
            }
            result.append((key, child))
        }
        return result
    }

    /// A map of strings (environment, headers): keys as written, values expanded.
    func stringMap() -> [(key: String, value: String, reader: JSONReader)]? {
        entries()?.compactMap { key, reader in reader.string().map { (key, $0, reader) } }
    }

    func reportDuplicate(_ key: String) {
        report(
            "duplicate key \"\(key)\"",
            fix: "keep only one \"\(key)\" here; a JSON object with a repeated key is ambiguous"
        )
    }
}

/// An object with a fixed set of keys, read key by key.
///
/// Unknown keys are reported once when the reader is made, with a suggestion when a known key is close; hosts'
/// keys (``HostKeys``) are accepted, the ignored ones with a notice. A key whose value is `null` counts as
/// absent, the way optional fields usually read in hand-written JSON.
struct ObjectReader {
    let object: JSONObject
    let reader: JSONReader
    /// Known keys that an unknown key was reported as a likely misspelling of, so later checks ("has neither
    /// command nor url") can stay quiet about a key the operator has already been told to fix.
    let suggestedKeys: Set<String>

    init(object: JSONObject, reader: JSONReader, known: [String], hostKeys: HostKeys = .none) {
        self.object = object
        self.reader = reader
        var seen: Set<String> = []
        var suggested: Set<String> = []
        for (key, _) in object {
            let child = reader.path.appending(key: key)
            if !seen.insert(key).inserted {
                JSONReader(value: .null, path: child, context: reader.context).reportDuplicate(key)
            } else if let message = hostKeys.ignored[key] {
                reader.context.notice(child, message, fix: HostKeys.fix(for: key))
            } else if !known.contains(key), !hostKeys.mapped.contains(key) {
                if let suggestion = KeySuggestion.closest(to: key, among: known) { suggested.insert(suggestion) }
                let fix = KeySuggestion.keyFix(for: key, among: known)
                reader.context.report(child, "unknown key \"\(key)\"", fix: fix)
            }
        }
        suggestedKeys = suggested
    }

    var path: JSONPath { reader.path }

    func report(_ message: String, fix: String) {
        reader.report(message, fix: fix)
    }

    /// The value at `key`, or `nil` when it is absent or `null`.
    subscript(key: String) -> JSONReader? {
        guard let value = object[key], value != .null else { return nil }
        return JSONReader(value: value, path: reader.path.appending(key: key), context: reader.context)
    }

    func contains(_ key: String) -> Bool {
        self[key] != nil
    }
}
