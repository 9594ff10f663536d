/// A server id (`[a-z0-9][a-z0-9_-]{0,62}`) made from a registry name, for `servers add --from` without an id:
/// the part after the last `/` (`io.github.owner/Weather.MCP` → `weather-mcp`), lowercased, other characters
/// and runs of `_`/`-` made one `-` or `_` (so no `__`, the default tool separator), at most 63 characters.
package enum RegistryServerID {
    package static func make(fromName name: String) -> String {
        let last = name.split(separator: "/").last.map(String.init) ?? name
        var id = ""
        for scalar in last.lowercased().unicodeScalars {
            let character: Character
            switch scalar {
            case "a"..."z", "0"..."9": character = Character(scalar)
            case "_": character = "_"
            default: character = "-"
            }
            if character == "-" || character == "_", let previous = id.last, previous == "-" || previous == "_" {
                continue
            }
            id.append(character)
        }
        while let first = id.first, first == "-" || first == "_" { id.removeFirst() }
        id = String(id.prefix(63))
        while let final = id.last, final == "-" || final == "_" { id.removeLast() }
        return id.isEmpty ? "server" : id
    }
}
