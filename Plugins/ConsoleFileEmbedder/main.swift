import Foundation

/// Writes the Swift source that carries the console's files: `ConsoleFiles.embedded`, each file's text as a raw
/// string literal, whose delimiter has one `#` more than the longest run in the file, so no content can end it.
///
/// Usage: ConsoleFileEmbedder OUTPUT.swift FILE...
let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: ConsoleFileEmbedder OUTPUT.swift FILE...\n".utf8))
    exit(2)
}

func longestRun(of character: Character, in text: String) -> Int {
    var longest = 0
    var current = 0
    for scalar in text {
        current = scalar == character ? current + 1 : 0
        longest = max(longest, current)
    }
    return longest
}

let files = arguments.dropFirst()
var source = """
    // Generated at build time from Sources/YrdenConsole/www; edit those files, not this one.
    extension ConsoleFiles {
        static let embedded: [String: String] = [\(files.isEmpty ? ":" : "")

    """
for path in files {
    let url = URL(fileURLWithPath: path)
    let text = try String(contentsOf: url, encoding: .utf8)
    let hashes = String(repeating: "#", count: longestRun(of: "#", in: text) + 1)
    source += "\"\(url.lastPathComponent)\": \(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes),\n"
}
source += "    ]\n}\n"
try source.write(to: URL(fileURLWithPath: output), atomically: true, encoding: .utf8)
