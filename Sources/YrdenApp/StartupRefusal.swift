/// A start that cannot go on for a reason the operator must fix (a store that cannot be reached, a missing
/// key): the CLI says `message` and exits 2, as for a bad config.
package struct StartupRefusal: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}
