import ArgumentParser

/// `yrden tools …`: the running gateway's pinned tool definitions, through the admin API.
struct Tools: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List pinned tool definitions and approve changed ones (through the admin API).",
        discussion: """
            The gateway pins each tool's definition the first time a server lists it (security.toolPinning). \
            A tool whose definition changes later is flagged (warn) or withheld from clients (enforce) until \
            it is approved here. These commands talk to a running `yrden serve` at --url (env YRDEN_URL, \
            default \(GatewayEndpoint.defaultURL)) with the admin token from --token (env YRDEN_ADMIN_TOKEN).
            """,
        subcommands: [ToolsPins.self, ToolsApprove.self],
        defaultSubcommand: ToolsPins.self
    )
}
