import Testing

@testable import YrdenConfig

@Suite struct GatewaySettingsTests {
    @Test(arguments: [
        ("127.0.0.1:8750", "127.0.0.1", 8750),
        ("[::1]:9000", "::1", 9000),
        ("0.0.0.0:0", "0.0.0.0", 0),
        ("localhost:65535", "localhost", 65535),
        ("gw.internal:80", "gw.internal", 80),
    ])
    func listenAddressesParse(_ text: String, _ host: String, _ port: Int) throws {
        let address = try ListenAddress.parse(text).get()
        #expect(address == ListenAddress(host: host, port: port))
        #expect(address.description == text)
    }

    @Test(arguments: ["8750", ":8750", "host:", "host:port", "::1:8750", "[::1]", "[::1:8750", "[x]:1", "a b:1"])
    func malformedListenAddressesFail(_ text: String) {
        #expect(throws: ListenAddress.Failure.self) { try ListenAddress.parse(text).get() }
    }

    @Test(arguments: [
        // Userinfo, paths and escapes: a listen address is no URL.
        "user@127.0.0.1:8750", "a@b@c:1", "127.0.0.1:8750/", "127.0.0.1\\:8750", "%31.0.0.1:80", "127.0.0.1%00:80",
        // Whitespace and control characters.
        " 127.0.0.1:80", "127.0.0.1:80 ", "127.0.0.1:80\n", "127.0.0.1\t:80", "[::1]:80\u{0}",
        // Ports: huge, signed, non-ASCII digits, doubled.
        "[::1]:99999999999999999999", "127.0.0.1:65536", "127.0.0.1:+80", "127.0.0.1:\u{FF18}\u{FF10}",
        "127.0.0.1:80:80",
        // Brackets around what is no IPv6 address, or around a zone.
        "[1:2]:80", "[:::]:80", "[1::2::3]:80", "[::1%eth0]:80", "[::1]]:80", "[[::1]]:80", "[v1.x]:80",
        "[1:2:3:4:5:6:7:8:9]:80", "[::1.2.3.4.5]:80",
    ])
    func hostileListenAddressesFail(_ text: String) {
        #expect(throws: ListenAddress.Failure.self) { try ListenAddress.parse(text).get() }
    }

    @Test func ipv6LiteralsAreReadAsTheCLibraryReadsThem() throws {
        #expect(try ListenAddress.parse("[::ffff:127.0.0.1]:80").get().host == "::ffff:127.0.0.1")
        #expect(try ListenAddress.parse("[1:2:3:4:5:6:7:8]:80").get().port == 80)
        #expect(try ListenAddress.parse("[::1]:0").get() == ListenAddress(host: "::1", port: 0))
        let problem = try #require(Config.problems(#"{"gateway": {"listen": "[1:2]:8750"}}"#).first)
        #expect(problem.message == "\"1:2\" is not an IPv6 address")
    }

    @Test func clientTokensExpand() throws {
        let config = try Config.decode(
            #"{"gateway": {"clientTokens": ["${A}", "literal"]}}"#,
            environment: ["A": "from-env"]
        )
        #expect(config.gateway.clientTokens == ["from-env", "literal"])
        #expect(try Config.decode("{}").gateway.clientTokens.isEmpty)
        #expect(Config.problems(#"{"gateway": {"clientTokens": "one"}}"#).first?.path == "gateway.clientTokens")
    }

    @Test func ipv6WithoutBracketsGetsItsOwnHint() throws {
        let problem = try #require(Config.problems(#"{"gateway": {"listen": "::1:8750"}}"#).first)
        #expect(problem.fix == "put IPv6 addresses in brackets, e.g. [::1]:8750")
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.8.9.10", true), ("localhost", true), ("::1", true), ("::ffff:127.0.0.1", true),
        ("0.0.0.0", false), ("::", false), ("192.168.1.2", false), ("example.com", false), ("127.0.0", false),
    ])
    func loopbackDetection(_ host: String, _ loopback: Bool) {
        #expect(GatewaySettings(listenHost: host).isLoopback == loopback)
    }

    @Test func nonLoopbackIsFineWithAToken() throws {
        let config = try Config.decode(#"{"gateway": {"listen": "0.0.0.0:8750", "adminToken": "t"}}"#)
        #expect(config.gateway.adminToken == "t")
        #expect(!config.gateway.isLoopback)
        #expect(config.gateway.exposureProblem == nil)
    }

    @Test func environmentOverridesApplyAfterTheFile() throws {
        let text = #"{"gateway": {"listen": "127.0.0.1:1", "adminToken": "file", "dataDir": "/file"}}"#
        let environment = ["YRDEN_LISTEN": "[::]:9999", "YRDEN_ADMIN_TOKEN": "env", "YRDEN_DATA_DIR": "/env"]
        let gateway = try Config.decode(text, environment: environment).gateway
        #expect(gateway.listenHost == "::")
        #expect(gateway.listenPort == 9999)
        #expect(gateway.adminToken == "env")
        #expect(gateway.dataDir == "/env")
    }

    @Test func emptyOverridesChangeNothing() throws {
        let text = #"{"gateway": {"adminToken": "file"}}"#
        let gateway = try Config.decode(text, environment: ["YRDEN_ADMIN_TOKEN": "", "YRDEN_LISTEN": ""]).gateway
        #expect(gateway.adminToken == "file")
        #expect(gateway.listenAddress == "127.0.0.1:8750")
    }

    @Test func overriddenListenIsStillValidatedAndGuarded() {
        let bad = Config.problems("{}", environment: ["YRDEN_LISTEN": "everywhere"])
        #expect(
            bad.map(\.description) == [
                #"gateway.listen: YRDEN_LISTEN="everywhere": "everywhere" is not HOST:PORT — write it as HOST:PORT,"#
                    + " e.g. 127.0.0.1:8750 or [::1]:8750"
            ]
        )
        let exposed = Config.problems("{}", environment: ["YRDEN_LISTEN": "0.0.0.0:8750"])
        #expect(exposed.map(\.message) == ["binding 0.0.0.0 exposes the admin API"])
        #expect(Config.problems("{}", environment: ["YRDEN_LISTEN": "0.0.0.0:8750", "YRDEN_ADMIN_TOKEN": "t"]).isEmpty)
    }

    @Test func originsAndPublicURL() throws {
        let good = try Config.decode(
            #"{"gateway": {"allowedOrigins": ["http://localhost:3000", "vscode-webview://abc"], "#
                + #""publicURL": "https://gw.example.com/base"}}"#
        )
        #expect(good.gateway.allowedOrigins == ["http://localhost:3000", "vscode-webview://abc"])
        #expect(good.gateway.publicURL == "https://gw.example.com/base")
        let bad = Config.problems(
            #"{"gateway": {"allowedOrigins": ["http://localhost:3000/app", "localhost", 3], "publicURL": "gw"}}"#
        )
        #expect(
            bad.map(\.path) == [
                "gateway.allowedOrigins[0]", "gateway.allowedOrigins[1]", "gateway.allowedOrigins[2]",
                "gateway.publicURL",
            ]
        )
    }

    @Test func trustedProxiesAreAddressesOrNetworks() throws {
        let good = try Config.decode(#"{"gateway": {"trustedProxies": ["10.0.0.0/8", "127.0.0.1", "fd00::/8"]}}"#)
        #expect(good.gateway.trustedProxies == ["10.0.0.0/8", "127.0.0.1", "fd00::/8"])
        #expect(try Config.decode("{}").gateway.trustedProxies.isEmpty)
        let bad = Config.problems(
            #"{"gateway": {"trustedProxies": ["10.0.0.0/33", "proxy.local", "::1/129", "10.0.0.0/x", 7]}}"#
        )
        #expect(bad.map(\.path) == (0..<5).map { "gateway.trustedProxies[\($0)]" })
        #expect(bad[0].message.contains("prefix length outside 0–32"))
        #expect(bad[1].message.contains("not an IP address or network"))
    }

    @Test func separatorAndBodyLimit() {
        #expect(Config.problems(#"{"gateway": {"toolSeparator": "/"}}"#).map(\.path) == ["gateway.toolSeparator"])
        #expect(
            Config.problems(#"{"gateway": {"maxBodyBytes": 1.5}}"#).map(\.message) == [
                "expected a whole number, found 1.5"
            ]
        )
        #expect(Config.problems(#"{"gateway": {"dataDir": ""}}"#).map(\.message) == ["dataDir is empty"])
    }
}
