import CYrdenProcess

/// The open-file limit stdio servers start with.
///
/// The gateway raises its own soft limit to the hard limit so that many connections fit; a child inheriting that
/// would see descriptors past 1,024, which breaks programs that still use `select()`. Children get the limit the
/// gateway itself was started with.
package enum ChildOpenFileLimit {
    /// Children started from now on get `soft` as their soft limit (when it is below the gateway's own).
    package static func keep(_ soft: Int) {
        yrden_set_child_open_file_limit(UInt64(max(0, soft)))
    }
}
