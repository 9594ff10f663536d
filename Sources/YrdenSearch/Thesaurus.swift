/// Words an agent uses for what tool descriptions call something else ("folder" for "directory", "make" for
/// "create", "meeting" for "event"): each query term also looks for its synonyms, at a lower weight than the
/// word itself, and for its related words at a lower weight still.
///
/// Only general vocabulary of tools (files, repositories, records, running things, calendars, tasks, builds,
/// messages, notes), no product names: a wrong entry costs precision on every query that uses the word.
enum Thesaurus {
    /// Words that mean the same thing to a tool, each finding the others.
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
        ["event", "meeting", "appointment"],
        ["todo", "task", "reminder"],
        ["ci", "pipeline", "workflow"],
        ["note", "memo"],
        ["user", "person", "people", "member"],
        ["cancel", "abort"],
        ["stop", "halt"],
    ]

    /// Words a need says (left) whose tool is likely described with others (right), found one way only: a
    /// query for "remind" also looks for "todo", but a query for "todo" does not look for "remind".
    static let related: [(words: [String], findAlso: [String])] = [
        (["schedule", "meeting", "appointment", "agenda"], ["event", "calendar"]),
        (["remind", "reminder", "chore"], ["todo", "task"]),
        (["build", "pipeline", "green", "passing", "failing", "broken"], ["ci", "status", "check"]),
        (["test"], ["ci", "check"]),
        (["deploy", "ship", "rollout"], ["deployment", "release"]),
        (["history", "changelog"], ["log", "commit"]),
        (["changed", "changes", "difference", "compare"], ["diff"]),
        (["show", "browse"], ["list"]),
        (["remember", "recall", "memorize", "memorise", "know", "note", "fact", "jot"], ["memory", "knowledge"]),
        (["forget", "discard", "drop", "purge"], ["delete", "remove"]),
        (["save", "store", "persist", "record"], ["write", "set", "add"]),
        (["grab", "obtain"], ["get", "fetch"]),
        (["connect", "associate", "relate", "attach"], ["relation", "link"]),
        (["error", "exception", "crash", "incident", "failure"], ["issue", "error"]),
        (["chat", "talk", "dm"], ["message", "channel"]),
        (["inbox"], ["mail", "message"]),
        (["contact", "colleague", "teammate", "coworker"], ["user", "contact"]),
        (["spreadsheet", "sheet", "csv"], ["spreadsheet", "table"]),
        (["song", "music", "playlist", "album"], ["track", "playlist", "audio"]),
        (["video", "movie", "clip"], ["video", "media"]),
        (["webpage", "website", "site"], ["page", "url", "web"]),
        (["nearby", "near", "around"], ["local", "place"]),
        (["coordinates", "latitude", "longitude"], ["geocode", "location"]),
        (["route", "directions", "drive", "driving", "commute"], ["direction", "distance"]),
        (["forecast", "temperature", "rain"], ["weather"]),
        (["upload"], ["put", "push", "write"]),
        (["login", "signin", "logon"], ["auth", "authenticate"]),
        (["password", "secret", "apikey"], ["credential", "token"]),
        (["summarize", "summarise", "tldr"], ["summary"]),
        (["translate"], ["translation", "language"]),
        (["invoice", "bill", "charge"], ["payment", "invoice"]),
        (["buy", "purchase"], ["order", "cart"]),
        (["cache"], ["key", "value"]),
        (["approve", "approval"], ["review"]),
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

    /// Each term's related words as terms, built once from ``related`` through the tokenizer; a term's synonyms
    /// are not repeated here.
    static let relatedTerms: [String: [String]] = {
        var relatedTerms: [String: [String]] = [:]
        for (words, findAlso) in related {
            let targets = findAlso.flatMap { Tokenizer.terms(Substring($0).unicodeScalars) }
            for term in words.flatMap({ Tokenizer.terms(Substring($0).unicodeScalars) }) {
                for target in targets where target != term && !(synonyms[term] ?? []).contains(target) {
                    if !(relatedTerms[term] ?? []).contains(target) { relatedTerms[term, default: []].append(target) }
                }
            }
        }
        return relatedTerms
    }()
}
