/// The parts of a tool the index scores separately: a word in a tool's name says more about what it does than
/// the same word in the fourth sentence of its description.
enum DocumentField: Int, CaseIterable, Sendable {
    case name
    case title
    case server
    case description
    case argumentNames
    case argumentDescriptions
}

/// One small count per field: a term's frequency in each field of a document, or a document's field lengths.
/// Saturates at `UInt16.max`, far above what the field bounds let in.
struct FieldCounts: Sendable, Equatable {
    private var counts: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0, 0, 0)

    subscript(field: DocumentField) -> UInt16 {
        get {
            switch field {
            case .name: counts.0
            case .title: counts.1
            case .server: counts.2
            case .description: counts.3
            case .argumentNames: counts.4
            case .argumentDescriptions: counts.5
            }
        }
        set {
            switch field {
            case .name: counts.0 = newValue
            case .title: counts.1 = newValue
            case .server: counts.2 = newValue
            case .description: counts.3 = newValue
            case .argumentNames: counts.4 = newValue
            case .argumentDescriptions: counts.5 = newValue
            }
        }
    }

    mutating func increment(_ field: DocumentField) {
        if self[field] < UInt16.max { self[field] += 1 }
    }

    static func == (lhs: FieldCounts, rhs: FieldCounts) -> Bool {
        DocumentField.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }
}

/// How a match is scored: BM25F (BM25 over weighted fields, Robertson and Zaragoza 2009), in which each field's
/// term frequency is normalised by that field's length, the fields are summed by weight, and the sum saturates
/// once (`k1`), so a word repeated in the name, the title and the description does not count three times over.
package struct Ranking: Sendable {
    /// Term-frequency saturation.
    package var k1: Double
    /// Per field (``DocumentField`` order): its weight, and how much its length normalises (0 none, 1 fully).
    package var weights: [Double]
    package var lengthNormalization: [Double]
    /// A synonym's weight (``Thesaurus``) relative to the query's own word.
    package var synonymWeight: Double
    /// What a tool's score is multiplied by when its title or description says it is deprecated.
    package var deprecatedWeight: Double

    /// Names and titles count most, the server's name as much as a description, schema property names and
    /// descriptions least (they name inputs, not what the tool does).
    package init(
        k1: Double = 1.2,
        weights: [Double] = [3.0, 2.0, 1.0, 1.0, 0.5, 0.3],
        lengthNormalization: [Double] = [0.5, 0.5, 0.3, 0.75, 0.5, 0.75],
        synonymWeight: Double = 0.5,
        deprecatedWeight: Double = 0.5
    ) {
        precondition(weights.count == DocumentField.allCases.count, "one weight per field")
        precondition(lengthNormalization.count == DocumentField.allCases.count, "one normalisation per field")
        self.k1 = k1
        self.weights = weights
        self.lengthNormalization = lengthNormalization
        self.synonymWeight = synonymWeight
        self.deprecatedWeight = deprecatedWeight
    }
}
