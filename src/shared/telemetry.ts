import type { Config } from "./config.js";

/**
 * OpenTelemetry traces, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set: incoming
 * and outgoing HTTP (the services, the upstream client through undici) and Postgres queries, with
 * W3C trace context carried to the upstream. Started before the services are loaded, so their
 * modules are instrumented; the SDK is only loaded when tracing is on.
 */
export async function startTelemetry(config: Config): Promise<(() => Promise<void>) | undefined> {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return undefined;
  const [{ NodeSDK }, { OTLPTraceExporter }, { HttpInstrumentation }, { UndiciInstrumentation }, { PgInstrumentation }] = await Promise.all(
    [
      import("@opentelemetry/sdk-node"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/instrumentation-http"),
      import("@opentelemetry/instrumentation-undici"),
      import("@opentelemetry/instrumentation-pg"),
    ],
  );
  const sdk = new NodeSDK({
    serviceName: config.OTEL_SERVICE_NAME,
    traceExporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, "")}/v1/traces` }),
    instrumentations: [
      // Health and metrics scrapes would drown the traces that matter.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)\b/.test(req.url ?? "") }),
      new UndiciInstrumentation(),
      new PgInstrumentation(),
    ],
  });
  sdk.start();
  return () => sdk.shutdown();
}
