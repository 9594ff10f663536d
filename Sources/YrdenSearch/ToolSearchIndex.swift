/// The tool search index behind a profile's "search" mode: BM25F over every connected server's tools, updated
/// one server at a time as servers connect and their lists change.
///
/// A value with no I/O and no locks: the owner keeps it where it keeps other shared state and copies it to
/// readers, who search their copy while the next change is made on another. One index serves every profile;
/// a profile's restriction is the `where` filter of ``search(_:limit:where:)``.
///
/// Updates never rebuild: ``replace(server:tools:)`` and ``remove(server:)`` touch only that server's documents
/// and the posting lists of their terms, and keep every statistic the ranking reads (the document count, each
/// field's total length, each term's document frequency) exactly what a fresh index of the same tools would
/// have, so an updated index ranks as a fresh one does. Document and term ids of removed tools are recycled.
package struct ToolSearchIndex: Sendable {
    package let ranking: Ranking

    /// Term text to term id; a term is removed once no document has it.
    var vocabulary: [String: UInt32] = [:]
    /// By term id: the term's text (empty while the id is free) and its postings, one per live document that
    /// has the term, in no order. A list's length is the term's document frequency.
    var termText: [String] = []
    var postings: [[Posting]] = []
    var freeTerms: [UInt32] = []
    /// Term ids by their first four bytes (``PartialTerms/key(_:)``; shorter terms are not kept), in no order:
    /// where a query word the index lacks finds the words that begin like it.
    var partialTerms: [UInt32: [UInt32]] = [:]
    /// By term id: its place in its ``partialTerms`` list (-1 for a short or free term), so removing it is O(1).
    private var partialSlots: [Int32] = []
    /// By term id, -1 but while a document is being added: the term's place in that document's list.
    private var termSlots: [Int32] = []

    /// By document id (nil while free), and each document's field lengths, kept apart for the scoring loop.
    var documents: [Document?] = []
    var lengths: [FieldCounts] = []
    /// By document id: whether the tool's title or description calls it deprecated.
    var deprecated: [Bool] = []
    var freeDocuments: [UInt32] = []

    var serverDocuments: [String: [UInt32]] = [:]
    /// A tool's whole name, and its server and name together, as ``Tokenizer/nameKey(_:)`` words: a query that is
    /// a tool's name finds that tool first.
    var nameDocuments: [String: [UInt32]] = [:]

    /// Tools indexed.
    package private(set) var count = 0
    /// Each field's length summed over every document, for the average BM25 normalises by.
    var totalLengths = [Int](repeating: 0, count: DocumentField.allCases.count)

    /// Tools the index holds at most (``SearchLimits/documents`` unless a test wants fewer).
    package let capacity: Int

    package init(ranking: Ranking = Ranking(), capacity: Int = SearchLimits.documents) {
        self.ranking = ranking
        self.capacity = capacity
    }

    /// Makes `tools` the whole of `server`'s documents: called when the server connects and whenever its tool
    /// list changes. A tool listed twice is indexed once (the first), a tool of another server not at all, and
    /// none past ``capacity`` in all.
    /// - Returns: how many of `tools` were indexed.
    @discardableResult
    package mutating func replace(server: String, tools: [SearchableTool]) -> Int {
        remove(server: server)
        var names = Set<String>()
        var added: [UInt32] = []
        for tool in tools where tool.server == server && count < capacity {
            guard names.insert(tool.name).inserted else { continue }
            added.append(add(tool))
        }
        if !added.isEmpty { serverDocuments[server] = added }
        return added.count
    }

    /// Forgets every tool of `server`: its documents, their postings, and the terms nothing else has.
    package mutating func remove(server: String) {
        guard let ids = serverDocuments.removeValue(forKey: server) else { return }
        var removed = [Bool](repeating: false, count: documents.count)
        var affected = Set<UInt32>()
        for id in ids {
            guard let document = documents[Int(id)] else { continue }
            removed[Int(id)] = true
            affected.formUnion(document.terms)
            for field in DocumentField.allCases { totalLengths[field.rawValue] -= Int(lengths[Int(id)][field]) }
            for key in document.nameKeys { forgetName(key, id) }
            documents[Int(id)] = nil
            lengths[Int(id)] = FieldCounts()
            deprecated[Int(id)] = false
            freeDocuments.append(id)
            count -= 1
        }
        for term in affected {
            postings[Int(term)].removeAll { removed[Int($0.doc)] }
            if postings[Int(term)].isEmpty {
                vocabulary.removeValue(forKey: termText[Int(term)])
                forgetPartial(termText[Int(term)], term)
                termText[Int(term)] = ""
                freeTerms.append(term)
            }
        }
    }

    /// Servers with at least one tool indexed.
    package var servers: some Collection<String> { serverDocuments.keys }

    private mutating func add(_ tool: SearchableTool) -> UInt32 {
        let id: UInt32
        if let free = freeDocuments.popLast() {
            id = free
        } else {
            id = UInt32(documents.count)
            documents.append(nil)
            lengths.append(FieldCounts())
            deprecated.append(false)
        }
        var terms: [UInt32] = []
        var frequencies: [FieldCounts] = []
        var fieldLengths = FieldCounts()
        for (field, text) in Self.fields(of: tool) {
            Tokenizer.forEachTerm(text) { text in
                let known = vocabulary[text]
                var slot = known.map { Int(termSlots[Int($0)]) } ?? -1
                if slot < 0 {
                    guard terms.count < SearchLimits.documentTerms else { return }
                    let term = known ?? newTerm(text)
                    slot = terms.count
                    termSlots[Int(term)] = Int32(slot)
                    terms.append(term)
                    frequencies.append(FieldCounts())
                }
                frequencies[slot].increment(field)
                fieldLengths.increment(field)
            }
        }
        for (term, counts) in zip(terms, frequencies) {
            postings[Int(term)].append(Posting(doc: id, counts: counts))
            termSlots[Int(term)] = -1
        }
        for field in DocumentField.allCases { totalLengths[field.rawValue] += Int(fieldLengths[field]) }
        let name = Tokenizer.nameKey(SearchLimits.prefix(tool.name, SearchLimits.nameCharacters))
        let server = Tokenizer.nameKey(SearchLimits.prefix(tool.server, SearchLimits.serverCharacters))
        let nameKeys = name.isEmpty ? [] : server.isEmpty ? [name] : [name, server + " " + name]
        for key in nameKeys { nameDocuments[key, default: []].append(id) }
        deprecated[Int(id)] =
            vocabulary[Self.deprecatedTerm].flatMap { term in
                terms.firstIndex(of: term).map { frequencies[$0][.title] > 0 || frequencies[$0][.description] > 0 }
            } ?? false
        documents[Int(id)] = Document(key: tool.key, terms: terms, nameKeys: nameKeys)
        lengths[Int(id)] = fieldLengths
        count += 1
        return id
    }

    /// "Deprecated" as a term: a tool that says it is ranks below the tool that replaces it.
    static let deprecatedTerm = Tokenizer.terms(Substring("deprecated").unicodeScalars)[0]

    /// A term id for a term no document has yet: a freed one when there is one.
    private mutating func newTerm(_ term: String) -> UInt32 {
        let id: UInt32
        if let free = freeTerms.popLast() {
            id = free
            termText[Int(id)] = term
        } else {
            id = UInt32(termText.count)
            termText.append(term)
            postings.append([])
            termSlots.append(-1)
            partialSlots.append(-1)
        }
        vocabulary[term] = id
        if let key = PartialTerms.key(term) {
            partialSlots[Int(id)] = Int32(partialTerms[key]?.count ?? 0)
            partialTerms[key, default: []].append(id)
        }
        return id
    }

    /// Takes a freed term out of its ``partialTerms`` list by moving the list's last term into its place.
    private mutating func forgetPartial(_ term: String, _ id: UInt32) {
        guard let key = PartialTerms.key(term), var list = partialTerms.removeValue(forKey: key) else { return }
        let slot = Int(partialSlots[Int(id)])
        partialSlots[Int(id)] = -1
        let last = list.removeLast()
        if last != id {
            list[slot] = last
            partialSlots[Int(last)] = Int32(slot)
        }
        if !list.isEmpty { partialTerms[key] = list }
    }

    private mutating func forgetName(_ key: String, _ id: UInt32) {
        nameDocuments[key]?.removeAll { $0 == id }
        if nameDocuments[key]?.isEmpty == true { nameDocuments.removeValue(forKey: key) }
    }

    /// Each field's text, cut to its bound (``SearchLimits``).
    private static func fields(of tool: SearchableTool) -> [(DocumentField, Substring.UnicodeScalarView)] {
        var fields: [(DocumentField, Substring.UnicodeScalarView)] = [
            (.name, SearchLimits.prefix(tool.name, SearchLimits.nameCharacters)),
            (.server, SearchLimits.prefix(tool.server, SearchLimits.serverCharacters)),
        ]
        if let title = tool.title { fields.append((.title, SearchLimits.prefix(title, SearchLimits.titleCharacters))) }
        if let description = tool.description {
            fields.append((.description, SearchLimits.prefix(description, SearchLimits.descriptionCharacters)))
        }
        for argument in tool.argumentNames.prefix(SearchLimits.arguments) {
            fields.append((.argumentNames, SearchLimits.prefix(argument, SearchLimits.argumentNameCharacters)))
            if let text = tool.argumentDescriptions[argument] {
                let description = SearchLimits.prefix(text, SearchLimits.argumentDescriptionCharacters)
                fields.append((.argumentDescriptions, description))
            }
        }
        return fields
    }
}

/// One document's entry in a term's posting list: the term's frequency in each of the document's fields.
struct Posting: Sendable {
    var doc: UInt32
    var counts: FieldCounts
}

/// What the index remembers of a tool: its key, and what to undo when it is removed.
struct Document: Sendable {
    var key: ToolKey
    /// The distinct terms of the document, whose posting lists hold it.
    var terms: [UInt32]
    var nameKeys: [String]
}
