import YrdenProtocol

/// The OpenTelemetry SDK's standard variables, read when the file sets no collector (see
/// ``ConfigDecoder/decodeTelemetry(_:)``). A malformed one is a problem naming the variable, as a file's
/// would be; header values are never quoted in it.
enum TelemetryEnvironment {
    static let tracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    static let endpoint = "OTEL_EXPORTER_OTLP_ENDPOINT"
    static let headers = "OTEL_EXPORTER_OTLP_HEADERS"
    static let tracesHeaders = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
    static let serviceName = "OTEL_SERVICE_NAME"
    static let samplerArgument = "OTEL_TRACES_SAMPLER_ARG"
    static let disabled = "OTEL_SDK_DISABLED"

    static func isDisabled(_ environment: [String: String]) -> Bool {
        environment[disabled]?.lowercased() == "true"
    }

    static func apply(to settings: inout TelemetrySettings, environment: [String: String], context: DecodingContext) {
        if let name = environment[serviceName], !name.isEmpty { settings.serviceName = name }
        if let text = environment[samplerArgument], !text.isEmpty {
            if let ratio = Double(text), ratio >= 0, ratio <= 1 {
                settings.sampleRatio = ratio
            } else {
                report(
                    context,
                    samplerArgument,
                    "\(text.quoted) is not a ratio from 0 to 1",
                    fix: "set it to e.g. 0.25"
                )
            }
        }
        let url: String
        let variable: String
        if let traces = environment[tracesEndpoint], !traces.isEmpty {
            (url, variable) = (traces, tracesEndpoint)
        } else if let base = environment[endpoint], !base.isEmpty {
            (url, variable) = (OTLPExporterSettings.tracesURL(endpoint: base), endpoint)
        } else {
            return
        }
        if let finding = ConfigRules.checkHTTPURL(url) {
            return report(context, variable, finding.message, fix: finding.fix)
        }
        let text = environment[tracesHeaders].flatMap { $0.isEmpty ? nil : $0 } ?? environment[headers] ?? ""
        guard let parsed = parseHeaders(text, context: context) else { return }
        settings.otlp = OTLPExporterSettings(tracesURL: url, headers: parsed)
    }

    /// `k=v,k2=v2` with URL-encoded values (the W3C baggage form the SDKs read); `nil` after a problem.
    static func parseHeaders(_ text: String, context: DecodingContext) -> [String: String]? {
        var result: [String: String] = [:]
        for member in text.split(separator: ",") {
            let pair = member.split(separator: "=", maxSplits: 1)
            let name = pair.first.map { String($0).trimmingCharacters(in: " \t") } ?? ""
            guard pair.count == 2, !name.isEmpty else {
                report(
                    context,
                    headers,
                    "a member is not name=value",
                    fix: "write name=value pairs separated by commas"
                )
                return nil
            }
            let raw = String(pair[1]).trimmingCharacters(in: " \t")
            guard let value = PercentDecoding.decode(raw.utf8) else {
                report(context, headers, "the value of \(name.quoted) is not URL-encoded", fix: "percent-encode it")
                return nil
            }
            if let finding = ConfigRules.checkHeader(name: name, value: value) {
                report(context, headers, finding.message, fix: finding.fix)
                return nil
            }
            result[name] = value
        }
        return result
    }

    private static func report(_ context: DecodingContext, _ variable: String, _ message: String, fix: String) {
        context.report(ConfigProblem(path: "telemetry", message: "\(variable): \(message)", fix: fix))
    }
}

extension String {
    /// Without the characters of `set` at either end.
    fileprivate func trimmingCharacters(in set: String) -> String {
        var view = Substring(self)
        while let first = view.first, set.contains(first) { view.removeFirst() }
        while let last = view.last, set.contains(last) { view.removeLast() }
        return String(view)
    }
}
