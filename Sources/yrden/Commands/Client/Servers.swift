import ArgumentParser

/// `yrden servers …`: the gateway's upstream servers, through the admin API.
struct Servers: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, add, remove and (re)connect the running gateway's servers (through the admin API).",
        discussion: """
            These commands talk to a running `yrden serve` at --url (env YRDEN_URL, default \
            \(GatewayEndpoint.defaultURL)) with the admin token from --token (env YRDEN_ADMIN_TOKEN).
            """,
        subcommands: [
            ServersList.self, ServersAdd.self, ServersRemove.self, ServersConnect.self, ServersDisconnect.self,
            ServersRestart.self,
        ],
        defaultSubcommand: ServersList.self
    )
}
