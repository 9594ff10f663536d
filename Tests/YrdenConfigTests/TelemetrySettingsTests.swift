import Testing
import YrdenProtocol

@testable import YrdenConfig

/// `telemetry` and the `OTEL_*` variables: off by default, what each reads as, and what a wrong value is told.
@Suite struct TelemetrySettingsTests {
    @Test func withoutTelemetryOrVariablesTracingIsOff() throws {
        let config = try Config.decode("{}")
        #expect(!config.telemetry.isEnabled)
        #expect(config.telemetry.sampleRatio == 1.0)
        #expect(config.telemetry.serviceName == "yrden")
    }

    @Test func theFileSectionReadsAsTheTracesURLAndHeaders() throws {
        let config = try Config.decode(
            #"""
            {"telemetry": {"otlp": {"endpoint": "http://127.0.0.1:4318/", "headers": {"authorization": "${TOKEN}"}},
                           "sampleRatio": 0.25, "serviceName": "edge"}}
            """#,
            environment: ["TOKEN": "Bearer t"]
        )
        #expect(config.telemetry.otlp?.tracesURL == "http://127.0.0.1:4318/v1/traces")
        #expect(config.telemetry.otlp?.headers == ["authorization": "Bearer t"])
        #expect(config.telemetry.sampleRatio == 0.25)
        #expect(config.telemetry.serviceName == "edge")
    }

    @Test func wrongValuesAreProblemsNamingTheField() {
        #expect(Config.problems(#"{"telemetry": {"sampleRatio": 1.5}}"#).map(\.path) == ["telemetry.sampleRatio"])
        #expect(Config.problems(#"{"telemetry": {"sampleRatio": "1"}}"#).map(\.path) == ["telemetry.sampleRatio"])
        #expect(Config.problems(#"{"telemetry": {"otlp": {}}}"#).map(\.path) == ["telemetry.otlp"])
        #expect(
            Config.problems(#"{"telemetry": {"otlp": {"endpoint": "ftp://x"}}}"#).map(\.path)
                == ["telemetry.otlp.endpoint"]
        )
        #expect(
            Config.problems(#"{"telemetry": {"otlp": {"url": "http://x"}}}"#).map(\.path).contains("telemetry.otlp.url")
        )
        #expect(Config.problems(#"{"telemetry": {"serviceName": ""}}"#).map(\.path) == ["telemetry.serviceName"])
        #expect(Config.problems(#"{"telemetry": {"sample": 1}}"#).map(\.path) == ["telemetry.sample"])
    }

    @Test func theStandardVariablesAreUsedWhenTheFileSetsNoCollector() throws {
        let environment = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
            "OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=a%20b, x-tenant=t1",
            "OTEL_SERVICE_NAME": "from-env",
            "OTEL_TRACES_SAMPLER_ARG": "0.5",
        ]
        let telemetry = try Config.decode("{}", environment: environment).telemetry
        #expect(
            telemetry.otlp
                == OTLPExporterSettings(
                    tracesURL: "http://collector:4318/v1/traces",
                    headers: ["x-api-key": "a b", "x-tenant": "t1"]
                )
        )
        #expect(telemetry.serviceName == "from-env")
        #expect(telemetry.sampleRatio == 0.5)

        var traces = environment
        traces["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = "http://other:4318/custom"
        #expect(try Config.decode("{}", environment: traces).telemetry.otlp?.tracesURL == "http://other:4318/custom")
    }

    @Test func theFileWinsAndSDKDisabledTurnsTracingOff() throws {
        let file = #"{"telemetry": {"otlp": {"endpoint": "http://file:4318"}}}"#
        let environment = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318"]
        #expect(
            try Config.decode(file, environment: environment).telemetry.otlp?.tracesURL == "http://file:4318/v1/traces"
        )
        let disabled = ["OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318"]
        #expect(try Config.decode(file, environment: disabled).telemetry.otlp == nil)
        #expect(try Config.decode("{}", environment: disabled).telemetry.otlp == nil)
    }

    @Test func malformedVariablesAreProblemsThatNeverQuoteAHeaderValue() {
        let badURL = Config.problems("{}", environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"])
        #expect(badURL.count == 1 && badURL[0].message.contains("OTEL_EXPORTER_OTLP_ENDPOINT"))
        let badHeaders = Config.problems(
            "{}",
            environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_HEADERS": "k=s3cr%ZZ"]
        )
        #expect(badHeaders.count == 1 && badHeaders[0].message.contains("OTEL_EXPORTER_OTLP_HEADERS"))
        #expect(!badHeaders[0].message.contains("s3cr"))
        let badRatio = Config.problems("{}", environment: ["OTEL_TRACES_SAMPLER_ARG": "2"])
        #expect(badRatio.count == 1 && badRatio[0].message.contains("OTEL_TRACES_SAMPLER_ARG"))
    }

    @Test func theCollectorsHeadersAreRedactedAndRestored() throws {
        let document = try ConfigDocument(
            parsing: Array(
                #"{"telemetry": {"otlp": {"endpoint": "http://c", "headers": {"authorization": "Bearer s3cret"}}}}"#
                    .utf8
            ),
            source: "test.json"
        )
        let shown = document.redacted()
        let header = shown.root["telemetry"]?["otlp"]?["headers"]?["authorization"]
        #expect(header == .string(ConfigDocument.redactionMark))
        let restored = document.restoringRedacted(in: shown.root)
        #expect(restored["telemetry"]?["otlp"]?["headers"]?["authorization"] == .string("Bearer s3cret"))
    }
}
