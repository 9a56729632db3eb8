import type { BaseConfig } from "./config.js";
import { redactUrl } from "./http/logger.js";

/**
 * What an incoming request's span says of its URL, redacted as the access log redacts it (both
 * the older `http.target` and the current `url.path`/`url.query` conventions, so whichever the
 * instrumentation wrote is overwritten).
 */
export function tracedUrlAttributes(url: string, host?: string): Record<string, string> {
  const redacted = redactUrl(url);
  const q = redacted.indexOf("?");
  return {
    "http.target": redacted,
    ...(host ? { "http.url": `http://${host}${redacted}`, "url.full": `http://${host}${redacted}` } : {}),
    "url.path": q === -1 ? redacted : redacted.slice(0, q),
    ...(q === -1 ? {} : { "url.query": redacted.slice(q + 1) }),
  };
}

/**
 * OpenTelemetry traces, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set: incoming
 * and outgoing HTTP (the services, the upstream client through undici) and Postgres queries, with
 * W3C trace context carried to the upstream. Started before the services are loaded, so their
 * modules are instrumented; the SDK is only loaded when tracing is on.
 */
export async function startTelemetry(config: BaseConfig): Promise<(() => Promise<void>) | undefined> {
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
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)\b/.test(req.url ?? ""),
        // The span's URL attributes are the access log's redacted URL: no interview token or secret in a trace.
        requestHook: (span, req) => {
          if ("setHeader" in req) return; // an outgoing request: no incoming URL to redact
          const attributes = tracedUrlAttributes(req.url ?? "", req.headers.host);
          for (const [name, value] of Object.entries(attributes)) span.setAttribute(name, value);
        },
      }),
      new UndiciInstrumentation(),
      new PgInstrumentation(),
    ],
  });
  sdk.start();
  return () => sdk.shutdown();
}
