/// Words an agent uses for what tool descriptions call something else ("folder" for "directory", "make" for
/// "create"): each query term also looks for its synonyms, at a lower weight than the word itself.
///
/// Small on purpose, and only general vocabulary of tools (files, repositories, records, running things), no
/// product names: a wrong synonym costs precision on every query that uses the word.
enum Thesaurus {
    static let groups: [[String]] = [
        ["folder", "directory", "dir"],
        ["repo", "repository"],
        ["make", "create"],
        ["delete", "remove", "erase"],
        ["find", "search", "lookup", "look"],
        ["modify", "change", "edit", "update", "alter"],
        ["run", "execute", "exec"],
        ["picture", "image", "photo"],
        ["show", "display", "view"],
        ["doc", "document"],
        ["db", "database"],
        ["info", "information", "details"],
        ["kill", "terminate"],
        ["start", "begin", "launch"],
        ["fetch", "download", "retrieve"],
        ["send", "post"],
        ["message", "msg"],
        ["link", "url"],
        ["mail", "email"],
        ["issue", "ticket", "bug"],
    ]

    /// Each term's synonyms as terms, built once from ``groups`` through the tokenizer.
    static let synonyms: [String: [String]] = {
        var synonyms: [String: [String]] = [:]
        for group in groups {
            let terms = group.flatMap { Tokenizer.terms(Substring($0).unicodeScalars) }
            for term in terms {
                synonyms[term, default: []].append(contentsOf: terms.filter { $0 != term })
            }
        }
        return synonyms
    }()
}
