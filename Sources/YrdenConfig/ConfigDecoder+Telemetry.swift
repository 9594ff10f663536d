import YrdenProtocol

/// The `telemetry` section, and the standard `OTEL_*` variables when the file sets no collector.
///
/// Keys:
/// - `otlp` (object): `endpoint` (http(s) URL, required; spans go to `<endpoint>/v1/traces`) and `headers`
///   (name → value, secrets, `${VAR}` allowed)
/// - `sampleRatio` (number 0 to 1; default 1.0): the share of new traces recorded
/// - `serviceName` (non-empty string; default "yrden"): the resource's `service.name`
///
/// Variables, read when the file has no `telemetry.otlp`: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the traces URL
/// as is), `OTEL_EXPORTER_OTLP_ENDPOINT` (+ `/v1/traces`), `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`, values
/// URL-encoded), `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER_ARG` (the ratio). `OTEL_SDK_DISABLED=true` turns
/// tracing off whatever the file says.
extension ConfigDecoder {
    static let telemetryKeys = ["otlp", "sampleRatio", "serviceName"]
    static let otlpKeys = ["endpoint", "headers"]

    func decodeTelemetry(_ reader: JSONReader?) -> TelemetrySettings {
        var settings = TelemetrySettings()
        let object = reader?.object(known: Self.telemetryKeys)
        if let ratio = object?["sampleRatio"] {
            settings.sampleRatio = decodeRatio(ratio) ?? 1.0
        }
        if let name = object?["serviceName"]?.nonEmptyString("telemetry.serviceName") {
            settings.serviceName = name
        }
        if let otlp = object?["otlp"] {
            settings.otlp = decodeOTLP(otlp)
        } else {
            TelemetryEnvironment.apply(to: &settings, environment: context.environment, context: context)
        }
        if TelemetryEnvironment.isDisabled(context.environment) { settings.otlp = nil }
        return settings
    }

    private func decodeRatio(_ reader: JSONReader) -> Double? {
        guard let number = reader.value.doubleValue else {
            reader.mismatch(expected: "a number from 0 to 1")
            return nil
        }
        guard number >= 0, number <= 1 else {
            reader.report(
                "sampleRatio \(reader.value.jsonText) is out of range (0 to 1)",
                fix: "use a number from 0 (no new trace recorded) to 1 (every trace, the default)"
            )
            return nil
        }
        return number
    }

    private func decodeOTLP(_ reader: JSONReader) -> OTLPExporterSettings? {
        guard let object = reader.object(known: Self.otlpKeys) else { return nil }
        guard let field = object["endpoint"] else {
            reader.report(
                "telemetry.otlp names no endpoint",
                fix: #"write "otlp": {"endpoint": "http://127.0.0.1:4318"} (spans go to <endpoint>/v1/traces)"#
            )
            return nil
        }
        guard let endpoint = field.string() else { return nil }
        if let finding = ConfigRules.checkHTTPURL(endpoint, shown: field.writtenString) {
            field.report(finding)
            return nil
        }
        var headers: [String: String] = [:]
        for (name, value, entry) in object["headers"]?.stringMap() ?? [] {
            if let finding = ConfigRules.checkHeader(name: name, value: value) {
                entry.report(finding)
                continue
            }
            headers[name] = value
        }
        return OTLPExporterSettings(tracesURL: OTLPExporterSettings.tracesURL(endpoint: endpoint), headers: headers)
    }
}
