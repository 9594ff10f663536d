import ArgumentParser

/// `--gateway` (or `--url`, its older name) and `--token`, which every client command takes to reach the
/// gateway. `--gateway` is the name that works everywhere: in `servers add`, `--url` is the new server's.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: [.customLong("gateway"), .customLong("url")],
        help: ArgumentHelp(
            "The gateway's address (env YRDEN_URL; default \(GatewayEndpoint.defaultURL)); --url is the same.",
            valueName: "url"
        )
    )
    var url: String?

    @Option(help: ArgumentHelp("The gateway's admin token (env YRDEN_ADMIN_TOKEN).", valueName: "token"))
    var token: String?

    func endpoint() throws(ValidationError) -> GatewayEndpoint {
        try GatewayEndpoint.resolve(url: url, token: token)
    }

    func validate() throws {
        _ = try endpoint()
    }
}

/// The connection options of `servers add`, where `--url` is the new server's address: the gateway's is
/// `--gateway` there.
struct AddConnectionOptions: ParsableArguments {
    @Option(
        name: .customLong("gateway"),
        help: ArgumentHelp(
            "The gateway's address (env YRDEN_URL; default \(GatewayEndpoint.defaultURL)).",
            valueName: "url"
        )
    )
    var gateway: String?

    @Option(help: ArgumentHelp("The gateway's admin token (env YRDEN_ADMIN_TOKEN).", valueName: "token"))
    var token: String?

    func endpoint() throws(ValidationError) -> GatewayEndpoint {
        try GatewayEndpoint.resolve(url: gateway, token: token)
    }

    func validate() throws {
        _ = try endpoint()
    }
}
