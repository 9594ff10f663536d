/// The `telemetry` section: where the gateway's OpenTelemetry traces go. `nil` `otlp` (no section, no
/// `OTEL_EXPORTER_OTLP_*` variable, or `OTEL_SDK_DISABLED=true`): tracing is off.
package struct TelemetrySettings: Sendable, Hashable {
    /// The OTLP/HTTP collector; `nil`: tracing is off.
    package var otlp: OTLPExporterSettings?
    /// The share of new traces recorded (0…1); a caller's sampled flag is followed either way.
    package var sampleRatio: Double = 1.0
    /// The resource's `service.name`.
    package var serviceName = TelemetrySettings.defaultServiceName

    package static let defaultServiceName = "yrden"

    package init(otlp: OTLPExporterSettings? = nil, sampleRatio: Double = 1.0, serviceName: String = "yrden") {
        self.otlp = otlp
        self.sampleRatio = sampleRatio
        self.serviceName = serviceName
    }

    package var isEnabled: Bool { otlp != nil }
}

/// An OTLP/HTTP collector: spans are POSTed to ``tracesURL`` as protobuf with ``headers`` (secrets: redacted
/// in API answers and never logged).
package struct OTLPExporterSettings: Sendable, Hashable, CustomStringConvertible {
    /// The full URL spans are POSTed to: `<endpoint>/v1/traces`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is.
    package var tracesURL: String
    package var headers: [String: String]

    package init(tracesURL: String, headers: [String: String] = [:]) {
        self.tracesURL = tracesURL
        self.headers = headers
    }

    /// The URL and the header names only: the values are secrets.
    package var description: String {
        "OTLPExporterSettings(\(ConfigDocument.redactedURL(tracesURL)), headers: \(headers.keys.sorted()))"
    }

    /// `<endpoint>/v1/traces`, without doubling a trailing slash.
    package static func tracesURL(endpoint: String) -> String {
        var base = Substring(endpoint)
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/v1/traces"
    }
}
