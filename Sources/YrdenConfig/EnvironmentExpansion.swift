import YrdenProtocol

/// `${VAR}` and `${VAR:-default}` substitution inside configuration strings, so secrets never need to live in
/// the file.
///
/// The grammar is deliberately small and predictable:
/// - `${NAME}` is the value of `NAME`; an unset `NAME` is a problem.
///   A set but empty `NAME` expands to the empty string.
/// - `${NAME:-default}` is the value of `NAME` when it is set and not empty, else `default`, taken literally up
///   to the closing `}` (the shell's `:-`).
/// - `$$` is one literal `$`.
/// - Any other `$` stays as it is, so passwords and prices need no escaping; only `${` starts a reference.
/// - Hosts' spellings: `${env:NAME}` (VS Code, Cursor, Windsurf) is `${NAME}`; `${input:ID}` (a VS Code prompt)
///   cannot be resolved here and says so (see ``HostVariables``).
///
/// `NAME` is letters, digits and `_`, not starting with a digit. The environment comes in as a dictionary so
/// that tests and the CLI decide what the config sees, not the process.
enum EnvironmentExpansion {
    static func expand(_ text: String, environment: [String: String]) -> (text: String, findings: [Finding]) {
        guard text.utf8.contains(UInt8(ascii: "$")) else { return (text, []) }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var findings: [Finding] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : nil
            guard byte == UInt8(ascii: "$"), let next, next == UInt8(ascii: "$") || next == UInt8(ascii: "{") else {
                output.append(byte)
                index += 1
                continue
            }
            if next == UInt8(ascii: "$") {
                output.append(byte)
                index += 2
                continue
            }
            guard let close = bytes[(index + 2)...].firstIndex(of: UInt8(ascii: "}")) else {
                // The text is not quoted: it may be a secret (a header or env value).
                let position = String(decoding: bytes[..<index], as: UTF8.self).count + 1
                findings.append(
                    Finding(
                        message: "the \"${\" at character \(position) has no closing \"}\"",
                        fix: "close the reference with \"}\", or write \"$$\" for a literal \"$\""
                    )
                )
                output.append(contentsOf: bytes[index...])
                break
            }
            let body = String(decoding: bytes[(index + 2)..<close], as: UTF8.self)
            switch resolve(body, environment: environment) {
            case .success(let value): output.append(contentsOf: value.utf8)
            case .failure(let finding): findings.append(finding)
            }
            index = close + 1
        }
        return (String(decoding: output, as: UTF8.self), findings)
    }

    /// The text between `${` and `}`: a name, optionally followed by `:-` and a default.
    private static func resolve(_ body: String, environment: [String: String]) -> Result<String, Finding> {
        if body.hasPrefix(HostVariables.inputPrefix) { return .failure(HostVariables.inputPrompt(body)) }
        let body = HostVariables.strippingEnvPrefix(body)
        let name: Substring
        let fallback: Substring?
        if let marker = body.firstRange(of: ":-") {
            name = body[..<marker.lowerBound]
            fallback = body[marker.upperBound...]
        } else {
            name = body[...]
            fallback = nil
        }
        guard isValidName(name) else {
            // Only the name is quoted: a default may be a secret.
            let shown = fallback == nil ? "${\(name)}" : "${\(name):-…}"
            return .failure(
                Finding(
                    message: "\(shown.quoted) is not a valid environment reference",
                    fix: "write ${NAME} or ${NAME:-default} (NAME is letters, digits and _, not starting with a digit),"
                        + " or \"$$\" for a literal \"$\""
                )
            )
        }
        let value = environment[String(name)] ?? HostVariables.standIn(for: String(name), environment: environment)
        if let fallback {
            if let value, !value.isEmpty { return .success(value) }
            return .success(String(fallback))
        }
        if let value { return .success(value) }
        return .failure(HostVariables.unset(String(name)))
    }

    static func isValidName(_ name: Substring) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_": true
            default: false
            }
        }
    }
}
