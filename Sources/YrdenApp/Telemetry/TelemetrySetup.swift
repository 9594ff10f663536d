import AsyncHTTPClient
import Logging
import Prometheus
import ServiceLifecycle
import YrdenConfig
import YrdenTelemetry

/// Tracing from the config: a tracer for the engine and the exporter service that sends its spans, or
/// neither when no collector is configured (tracing off).
struct TelemetrySetup {
    let tracer: Tracer?
    let exporter: OTLPExporter?

    /// `networkTransport` is the downstream transport's `network.transport` (`tcp`, or `pipe` for stdio).
    init(
        _ settings: TelemetrySettings,
        networkTransport: String,
        client: HTTPClient?,
        metrics: PrometheusCollectorRegistry,
        logger: Logger
    ) {
        guard let otlp = settings.otlp, let client else {
            (tracer, exporter) = (nil, nil)
            return
        }
        let tracer = Tracer(
            serviceName: settings.serviceName,
            sampleRatio: settings.sampleRatio,
            networkTransport: networkTransport
        )
        self.tracer = tracer
        exporter = OTLPExporter(tracer: tracer, settings: otlp, client: client, metrics: metrics, logger: logger)
        logger.info(
            "tracing on",
            metadata: [
                "otlp": "\(ConfigDocument.redactedURL(otlp.tracesURL))",
                "sampleRatio": "\(settings.sampleRatio)",
                "serviceName": "\(settings.serviceName)",
            ]
        )
    }

    /// The exporter first: a service group stops its services in reverse order, so the exporter stops last
    /// and its final flush sends what the others recorded while stopping.
    func services(
        before others: [ServiceGroupConfiguration.ServiceConfiguration]
    )
        -> [ServiceGroupConfiguration.ServiceConfiguration]
    {
        guard let exporter else { return others }
        return [.init(service: exporter)] + others
    }
}
