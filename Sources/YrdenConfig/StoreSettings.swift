/// The `store` section: where replicas keep the state they share. Absent, everything stays in files (the
/// config file, the data directory), as for one gateway on one machine.
package struct StoreSettings: Sendable, Hashable {
    /// `postgres://user:password@host:port/database`, `${VAR}` expanded (the password belongs in a variable).
    package var postgres: String?

    package init(postgres: String? = nil) {
        self.postgres = postgres
    }
}
