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
