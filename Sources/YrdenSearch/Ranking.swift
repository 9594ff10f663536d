/// How a match is scored: BM25F (BM25 over weighted fields, Robertson and Zaragoza 2009), in which each field's
/// term frequency is normalised by that field's length, the fields are summed by weight, and the sum saturates
/// once (`k1`), so a word repeated in the name, the title and the description does not count three times over.
package struct Ranking: Sendable {
    /// Term-frequency saturation.
    package var k1: Double
    /// Per field (``DocumentField`` order): its weight, and how much its length normalises (0 none, 1 fully).
    package var weights: [Double]
    package var lengthNormalization: [Double]
    /// A synonym's weight (``Thesaurus/groups``) relative to the query's own word.
    package var synonymWeight: Double
    /// A related word's weight (``Thesaurus/related``): less than a synonym's, since it says less.
    package var relatedWeight: Double
    /// The weight of a word the index has that shares its beginning with a query word ("javascript" and "java",
    /// "notify" and "notification"): looked for only for query words the index lacks, or when nothing matched.
    package var partialWeight: Double
    /// What a tool's score is multiplied by when its title or description says it is deprecated.
    package var deprecatedWeight: Double

    /// Names and titles count most, the server's name as much as a description, schema property names and
    /// descriptions least (they name inputs, not what the tool does).
    package init(
        k1: Double = 1.2,
        weights: [Double] = [3.0, 2.0, 1.0, 1.0, 0.5, 0.3],
        lengthNormalization: [Double] = [0.5, 0.5, 0.3, 0.75, 0.5, 0.75],
        synonymWeight: Double = 0.5,
        relatedWeight: Double = 0.4,
        partialWeight: Double = 0.3,
        deprecatedWeight: Double = 0.5
    ) {
        precondition(k1 > 0, "k1 is positive")
        precondition(weights.count == DocumentField.allCases.count, "one weight per field")
        precondition(weights.allSatisfy { $0 > 0 }, "every field counts")
        precondition(lengthNormalization.count == DocumentField.allCases.count, "one normalisation per field")
        precondition(lengthNormalization.allSatisfy { (0...1).contains($0) }, "normalisation is between 0 and 1")
        precondition(synonymWeight > 0 && synonymWeight <= 1, "a synonym counts, at most as its word")
        precondition(relatedWeight > 0 && relatedWeight <= 1, "a related word counts, at most as the word")
        precondition(partialWeight > 0 && partialWeight <= 1, "a partial match counts, at most as the word")
        precondition(deprecatedWeight > 0 && deprecatedWeight <= 1, "deprecation demotes, never removes")
        self.k1 = k1
        self.weights = weights
        self.lengthNormalization = lengthNormalization
        self.synonymWeight = synonymWeight
        self.relatedWeight = relatedWeight
        self.partialWeight = partialWeight
        self.deprecatedWeight = deprecatedWeight
    }
}
