// swift-tools-version: 6.1
import PackageDescription

/// Settings every target shares: Swift 6 language mode plus the upcoming features the Swift server
/// ecosystem enables, so strict concurrency and explicit existentials hold everywhere.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

let log = Target.Dependency.product(name: "Logging", package: "swift-log")
let lifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let signals = Target.Dependency.product(name: "UnixSignals", package: "swift-service-lifecycle")
let httpClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
let nioWebSocket = Target.Dependency.product(name: "NIOWebSocket", package: "swift-nio")
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let cryptoExtras = Target.Dependency.product(name: "_CryptoExtras", package: "swift-crypto")
let metrics = Target.Dependency.product(name: "CoreMetrics", package: "swift-metrics")
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")
let postgres = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")
let nioSSL = Target.Dependency.product(name: "NIOSSL", package: "swift-nio-ssl")

let package = Package(
    name: "Yrden",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // Layer 0: no I/O of their own.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .target(name: "YrdenProtocol", swiftSettings: strict),
        /// MCP's stdio framing over file descriptors: blocking line reads on a thread, whole-line writes.
        .target(name: "YrdenLineIO", dependencies: ["CYrdenProcess"], swiftSettings: strict),
        /// Linux process calls Swift cannot make itself: fork/exec with a parent-death signal, pidfd, epoll, subreaper,
        /// thread names.
        .target(name: "CYrdenProcess"),
        /// Where a request task's next step runs: on the thread that made it runnable, when that thread allows it;
        /// heavy work sent off the event loop a few at a time (`OffLoopSlots`).
        .target(name: "YrdenExecution", swiftSettings: strict),
        /// Atomic file writes and secret files (0600, AES-GCM when YRDEN_SECRET_KEY is set); knows nothing of MCP.
        .target(name: "YrdenStorage", dependencies: [crypto], swiftSettings: strict),
        /// Tracing's pure part: W3C trace context, ids, the sampler, span records, their bounded queue and their
        /// OTLP protobuf encoding. The exporter that sends them lives in YrdenApp.
        .target(name: "YrdenTelemetry", swiftSettings: strict),
        /// The tool search index of "search" mode: BM25F over tools' names and descriptions, updated per server.
        .target(name: "YrdenSearch", swiftSettings: strict),
        /// The web console's static files, embedded in the binary at build time.
        .target(
            name: "YrdenConsole",
            exclude: ["www", "screenshot.png"],
            swiftSettings: strict,
            plugins: ["EmbedConsoleFiles"]
        ),

        // Layer 1: one concern each, unaware of the others.
        .target(name: "YrdenConfig", dependencies: ["YrdenProtocol"], swiftSettings: strict),
        .target(
            name: "YrdenHTTPServer",
            dependencies: ["CMicroHTTPD", "YrdenExecution", log, lifecycle],
            swiftSettings: strict
        ),
        .target(
            name: "YrdenTransport",
            dependencies: [
                "YrdenProtocol", "YrdenExecution", "YrdenLineIO", "CYrdenProcess", httpClient, nioCore, nioHTTP1,
                nioPosix, nioWebSocket, nioSSL,
            ],
            swiftSettings: strict
        ),
        .target(name: "YrdenDemoServer", dependencies: ["YrdenProtocol", "YrdenLineIO"], swiftSettings: strict),
        /// The state replicas share, in PostgreSQL: versioned documents written by compare-and-set, a change feed
        /// (LISTEN/NOTIFY), advisory locks, and the schema's migrations.
        .target(
            name: "YrdenSharedState",
            dependencies: ["YrdenProtocol", "YrdenStorage", postgres, nioSSL, nioCore, log],
            swiftSettings: strict
        ),
        /// The audit trail: hash-chained JSON lines written by a thread of their own, rotated, and their verifier.
        .target(
            name: "YrdenAudit",
            dependencies: ["YrdenProtocol", "YrdenLineIO", crypto, metrics],
            swiftSettings: strict
        ),
        /// The gateway as an OAuth-protected resource: access tokens checked (JWTs against the issuer's keys, opaque
        /// ones by introspection), verdicts cached per token.
        .target(
            name: "YrdenResourceAuth",
            dependencies: ["YrdenProtocol", crypto, cryptoExtras, httpClient, nioCore, nioHTTP1],
            swiftSettings: strict
        ),
        /// Upstream OAuth 2.1 client: discovery, registration, PKCE, exchange, refresh, callback router, token store.
        .target(
            name: "YrdenOAuth",
            dependencies: ["YrdenProtocol", "YrdenStorage", httpClient, nioCore, nioHTTP1, crypto, log],
            swiftSettings: strict
        ),

        // Layer 2: many upstreams as one.
        .target(
            name: "YrdenEngine",
            dependencies: [
                "YrdenProtocol", "YrdenSearch", "YrdenConfig", "YrdenExecution", "YrdenTransport", "YrdenAudit",
                "YrdenTelemetry", log, httpClient, metrics, crypto,
            ],
            swiftSettings: strict
        ),

        /// A scripted fake upstream and a manual clock, for the engine's unit tests (not shipped in the binary).
        .target(
            name: "YrdenTesting",
            dependencies: ["YrdenProtocol", "YrdenConfig", "YrdenTransport", "YrdenEngine"],
            swiftSettings: strict
        ),

        // Layer 3: what operators change: config persistence, OAuth sign-ins, the config file watcher.
        .target(
            name: "YrdenControl",
            dependencies: [
                "YrdenProtocol", "YrdenConfig", "YrdenStorage", "YrdenLineIO", "YrdenTransport", "YrdenOAuth",
                "YrdenEngine", "YrdenSharedState", log, lifecycle, signals,
            ],
            swiftSettings: strict
        ),

        // Layer 4: HTTP semantics.
        .target(
            name: "YrdenFront",
            dependencies: [
                "YrdenProtocol", "YrdenConfig", "YrdenTransport", "YrdenEngine", "YrdenControl", "YrdenHTTPServer",
                "YrdenExecution", "YrdenLineIO", "YrdenConsole", "YrdenResourceAuth", log, prometheus,
                // The downstream WebSocket: frames by NIOWebSocket on the HTTP client's loops, its accept key by SHA-1.
                nioCore, nioPosix, nioWebSocket, crypto,
            ],
            swiftSettings: strict
        ),

        // Layer 5: the composition root, a library so tests can start it in-process.
        .target(
            name: "YrdenApp",
            dependencies: [
                "YrdenProtocol", "YrdenConfig", "YrdenEngine", "YrdenControl", "YrdenFront", "YrdenHTTPServer",
                "YrdenAudit", "YrdenOAuth", "YrdenResourceAuth", "YrdenStorage", "YrdenTransport", "YrdenSharedState",
                "YrdenTelemetry", log, lifecycle, signals, httpClient, nioCore, nioHTTP1, prometheus,
            ],
            swiftSettings: strict
        ),

        // Layer 6: the CLI.
        .executableTarget(
            name: "yrden",
            dependencies: [
                "YrdenApp", "YrdenAudit", "YrdenConfig", "YrdenDemoServer", "YrdenLineIO", "YrdenProtocol",
                "YrdenTelemetry", argumentParser, log, metrics, prometheus, httpClient, nioCore, nioHTTP1,
            ],
            swiftSettings: strict
        ),

        /// Measures the tool search index: search latency and the time to add a server, over 10,000 tools.
        .executableTarget(
            name: "yrden-search-bench",
            dependencies: ["YrdenSearch"],
            path: "Benchmarks/SearchBench",
            swiftSettings: strict
        ),

        // Build tooling: embeds the console's files (see YrdenConsole).
        .executableTarget(name: "ConsoleFileEmbedder", path: "Plugins/ConsoleFileEmbedder"),
        .plugin(name: "EmbedConsoleFiles", capability: .buildTool(), dependencies: ["ConsoleFileEmbedder"]),

        .testTarget(
            name: "YrdenProtocolTests",
            dependencies: ["YrdenProtocol", "YrdenTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "YrdenExecutionTests",
            dependencies: ["YrdenExecution", "YrdenLineIO", "YrdenTesting"],
            swiftSettings: strict
        ),
        .testTarget(name: "YrdenSearchTests", dependencies: ["YrdenSearch"], swiftSettings: strict),
        .testTarget(name: "YrdenTelemetryTests", dependencies: ["YrdenTelemetry"], swiftSettings: strict),
        .testTarget(name: "YrdenConfigTests", dependencies: ["YrdenConfig", "YrdenProtocol"], swiftSettings: strict),
        .testTarget(name: "YrdenStorageTests", dependencies: ["YrdenStorage"], swiftSettings: strict),
        .testTarget(
            name: "YrdenResourceAuthTests",
            dependencies: ["YrdenResourceAuth", "YrdenProtocol", crypto, cryptoExtras],
            swiftSettings: strict
        ),
        .testTarget(name: "YrdenAuditTests", dependencies: ["YrdenAudit", "YrdenProtocol"], swiftSettings: strict),
        .testTarget(name: "YrdenSharedStateTests", dependencies: ["YrdenSharedState"], swiftSettings: strict),
        .testTarget(
            name: "YrdenOAuthTests",
            dependencies: [
                "YrdenOAuth", "YrdenProtocol", "YrdenStorage", "YrdenHTTPServer", httpClient, nioCore, nioHTTP1, log,
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "YrdenHTTPServerTests",
            dependencies: ["YrdenHTTPServer", "YrdenExecution", "YrdenTransport", log, lifecycle],
            swiftSettings: strict
        ),
        .testTarget(
            name: "YrdenTransportTests",
            dependencies: [
                "YrdenTransport", "YrdenProtocol", "YrdenLineIO", "YrdenTesting", nioCore, nioWebSocket,
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "YrdenFrontTests",
            dependencies: [
                "YrdenFront", "YrdenConsole", "YrdenConfig", "YrdenControl", "YrdenEngine", "YrdenHTTPServer",
                "YrdenLineIO", "YrdenProtocol", "YrdenTesting", "YrdenTransport", log, prometheus,
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "YrdenDemoServerTests",
            dependencies: ["YrdenDemoServer", "YrdenProtocol"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "YrdenEngineTests",
            dependencies: ["YrdenEngine", "YrdenTesting", "YrdenTransport", "YrdenProtocol", "YrdenConfig", log],
            swiftSettings: strict
        ),
        .testTarget(
            name: "YrdenControlTests",
            dependencies: [
                "YrdenControl", "YrdenEngine", "YrdenConfig", "YrdenProtocol", "YrdenOAuth", "YrdenStorage",
                "YrdenTransport", log,
            ],
            swiftSettings: strict
        ),
    ]
)
