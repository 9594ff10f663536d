/// `YRDEN_*` environment variables that override the file, so a container can be configured without
/// rewriting it.
///
/// - `YRDEN_LISTEN`: `HOST:PORT`, replaces `gateway.listen`.
/// - `YRDEN_ADMIN_TOKEN`: replaces `gateway.adminToken`.
/// - `YRDEN_DATA_DIR`: replaces `gateway.dataDir`.
/// - `YRDEN_REPLICA_URL`: replaces `gateway.replicaURL` (a pod's own address, from the downward API).
///
/// A variable that is unset or empty changes nothing: an empty variable left over in a shell must never remove
/// an admin token the file sets. A CLI flag such as `--listen` can be passed the same way, by putting it into
/// the environment dictionary given to the loader.
enum EnvironmentOverrides {
    static let listen = "YRDEN_LISTEN"
    static let adminToken = "YRDEN_ADMIN_TOKEN"
    static let dataDir = "YRDEN_DATA_DIR"
    static let replicaURL = "YRDEN_REPLICA_URL"

    static func apply(to settings: inout GatewaySettings, environment: [String: String], context: DecodingContext) {
        if let text = environment[listen], !text.isEmpty {
            switch ListenAddress.parse(text) {
            case .success(let address):
                settings.listenHost = address.host
                settings.listenPort = address.port
            case .failure(let failure):
                context.report(
                    ConfigProblem(
                        path: "gateway.listen",
                        message: "\(listen)=\(text.quoted): \(failure.message)",
                        fix: failure.fix
                    )
                )
            }
        }
        if let token = environment[adminToken], !token.isEmpty {
            settings.adminToken = token
        }
        if let directory = environment[dataDir], !directory.isEmpty {
            settings.dataDir = directory
        }
        if let url = environment[replicaURL], !url.isEmpty {
            if let finding = ConfigRules.checkHTTPURL(url, shown: url) {
                context.report(
                    ConfigProblem(
                        path: "gateway.replicaURL",
                        message: "\(replicaURL): \(finding.message)",
                        fix: finding.fix
                    )
                )
            } else {
                settings.replicaURL = url
            }
        }
    }
}
