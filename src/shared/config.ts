import { type Static, type TObject, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/**
 * Configuration is parsed once, from one source (the environment the CLI hands over), into a
 * frozen typed object. Every bad variable is reported together so an operator fixes them in one
 * pass. Modules receive the parsed object; only src/cli/ reads the environment.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join("\n")}`);
  }
}

const Port = (def: number, description: string) => Type.Integer({ minimum: 0, maximum: 65535, default: def, description });

/**
 * The variables every service may read: the run contract (bind address, each service's port, so
 * every service knows where the others live: serviceUrls), logging, storage, the shared cache, the
 * tokens the APIs trust, HTTP limits, tracing, the job queue, and what two services share (the
 * upstream's key and webhook secret, the demo organisation). Each service declares its own
 * variables in its folder's `config.ts`; src/runtime/config.ts composes them with this base, per
 * service for `serve <name>`, all of them for `serve all` (the same names and defaults either way).
 */
export const BaseConfigSchema = Type.Object({
  HOST: Type.String({ default: "127.0.0.1", description: "Bind address of every service." }),
  PROXY_PORT: Port(8000, "Integration proxy port."),
  API_PORT: Port(8001, "Recruiting API port."),
  AUTH_PORT: Port(8080, "Embedded token service port."),
  SANDBOX_PORT: Port(8090, "Upstream sandbox port."),
  CONSOLE_PORT: Port(8002, "Operator console port (the web console; signs in as client `hirebridge-console`)."),
  PUBLIC_HOST: Type.Optional(Type.String({ description: "Host name used in URLs the services print and issue (default: HOST)." })),
  LOG_LEVEL: Type.Union(
    ["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((l) => Type.Literal(l)),
    { default: "info", description: "pino log level." },
  ),
  LOG_FORMAT: Type.Union(
    ["auto", "json", "pretty"].map((l) => Type.Literal(l)),
    {
      default: "auto",
      description:
        "Log lines: `pretty` (one readable line per request or event), `json` (pino, for collectors), or `auto`: pretty when stdout is a terminal, else JSON.",
    },
  ),
  DATA_DIR: Type.String({
    default: "./.data",
    description:
      "Where embedded storage (PGlite) and the sandbox's state live; a relative path is relative to the Hirebridge checkout (so `npm start` and the CLI run from any directory agree). One running stack per directory (`hirebridge.lock`).",
  }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: "^postgres(ql)?://", description: "A real Postgres; unset means embedded PGlite." })),
  DATABASE_SCHEMA: Type.Optional(
    Type.String({ pattern: "^[a-z_][a-z0-9_]{0,62}$", description: "Postgres schema to use (default public)." }),
  ),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 15000,
    description:
      "Longest one Postgres statement of background work (sync, write-backs, deliveries, schedules) may run (its statement_timeout; when the server answers nothing at all, the client gives up 0.5 s later, give or take its once-a-tenth-of-the-bound check); past it a request answers 503 with Retry-After, a job is retried. Migrations are exempt. No effect on PGlite.",
  }),
  DATABASE_REQUEST_STATEMENT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 5000,
    description:
      "Longest one Postgres statement of an API request may run (every request of the recruiting API, the token service and the proxy with its sync routes and webhook receivers, on a pool of their own), so a caller hears 503 with Retry-After within a few seconds of Postgres freezing; never longer than DATABASE_STATEMENT_TIMEOUT_MS, which keeps bounding the workers. The same 0.5 s client margin applies. No effect on PGlite.",
  }),
  DATABASE_CONNECT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 5000,
    description:
      "Longest wait for a Postgres connection: for a free one of the pool, or to open a new one; past it the request answers 503 with Retry-After. No effect on PGlite.",
  }),
  PGLITE_WASM_COMPILER: Type.Union([Type.Literal("optimizing"), Type.Literal("baseline")], {
    default: "optimizing",
    description:
      "How V8 compiles embedded PGlite's WebAssembly (no effect with `DATABASE_URL`). `optimizing`: hot functions are recompiled with TurboFan, the fastest; compiling one of Postgres's largest functions takes about 640 MB for a moment, so the embedded stack peaks near 900 MB. `baseline`: Liftoff only, for small machines: about 350 MB lower peaks, PGlite 6–28% slower (bench/README.md, round 5). Applies to all WebAssembly the process compiles from then on.",
  }),
  REDIS_URL: Type.Optional(Type.String({ pattern: "^rediss?://", description: "Redis for the shared cache." })),
  AUTH_ISSUER: Type.Optional(
    Type.String({
      pattern: "^https?://",
      description: "Issuer (realm URL) whose tokens the APIs trust. Default: the embedded token service.",
    }),
  ),
  AUTH_JWKS_URL: Type.Optional(Type.String({ pattern: "^https?://", description: "JWKS URL; default: discovered from the issuer." })),
  AUTH_AUDIENCE: Type.String({
    default: "hirebridge",
    minLength: 1,
    description:
      "Audience both APIs require: a token must name it in `aud`, or have been issued to it as a client (`azp`, or RFC 9068's `client_id`). The embedded token service puts it in the `aud` of its application clients' access tokens; against Keycloak, an audience mapper does (docs/operations.md, Audience).",
  }),
  AUTH_CLOCK_SKEW_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 300,
    default: 30,
    description: "Clock skew tolerated on exp/nbf/iat, seconds: a token issued later than now plus the skew is refused.",
  }),
  AUTH_REQUIRE_TOKEN_TYPE: Type.Boolean({
    default: true,
    description:
      "Accept only tokens that say they are access tokens: the claim `typ: Bearer` (Keycloak, the embedded token service) or the header `typ: at+jwt` (RFC 9068). `false` for an issuer whose access tokens carry neither; a token that names another type (an ID or refresh token) is refused either way (docs/token-service.md, Token types).",
  }),
  AUTH_REALM: Type.String({ default: "hirebridge", pattern: "^[A-Za-z0-9_-]+$", description: "Realm of the embedded token service." }),
  AUTH_CLIENT_ID: Type.String({ default: "hirebridge", minLength: 1, description: "Public client id." }),
  DEMO_ORG_ID: Type.String({
    pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
    default: "6d3f1e2a-9b4c-4f7e-8a1d-2c5b7e9f0a13",
    description: "Organisation of the demo user; the sandbox's demo integration belongs to it.",
  }),
  RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 1200,
    description:
      "Requests per minute per caller (token subject, else address) on the recruiting API and the proxy; 429 with Retry-After. 0 = off. Shared through Redis when REDIS_URL is set. The webhook receivers are outside it: authentic events are never refused; unauthentic ones get this many per address per instance.",
  }),
  RATE_LIMIT_ORG_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 6000,
    description:
      "Requests per minute per organisation (the token's org claim), all its users and service accounts together, on the recruiting API and the proxy (where each request is at most one upstream call, so this is also the organisation's upstream call budget); 429 with Retry-After. Counted besides RATE_LIMIT_PER_MINUTE per caller. 0 = off. Shared through Redis when REDIS_URL is set.",
  }),
  TRUST_PROXY: Type.Integer({
    minimum: 0,
    maximum: 10,
    default: 0,
    description:
      "Load balancers in front of the services whose X-Forwarded-For is trusted (client address for rate limits and logs); 0 = none.",
  }),
  CORS_ORIGINS: Type.String({
    default: "*",
    description:
      "Origins allowed to call the recruiting API and the proxy from a browser: `*`, or a comma-separated list (bearer tokens, no cookies); the operator console's origin is always allowed.",
  }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1048576, description: "Largest request body accepted; larger answers 413." }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    default: 30000,
    description: "Time a client has to send a whole request (against slow clients); idle keep-alive connections close after 72 s.",
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(
    Type.String({ pattern: "^https?://", description: "OTLP/HTTP collector; when set, traces (HTTP in and out, Postgres) are exported." }),
  ),
  OTEL_SERVICE_NAME: Type.String({ default: "hirebridge", minLength: 1, description: "service.name of exported traces." }),
  UPSTREAM_BASE_URL: Type.Optional(Type.String({ pattern: "^https?://", description: "Upstream unified ATS API; default: the sandbox." })),
  UPSTREAM_API_KEY: Type.String({
    default: "sandbox-api-key",
    minLength: 1,
    description: "Key the proxy sends upstream and the sandbox accepts.",
  }),
  UPSTREAM_WEBHOOK_SECRET: Type.String({
    default: "sandbox-webhook-secret",
    minLength: 1,
    description: "Secret the upstream signs webhooks with.",
  }),
  ERASURE_SUPPRESSION_SECRET: Type.String({
    default: "hirebridge-erasure-suppression",
    minLength: 1,
    description:
      "Key of the HMAC of an erased candidate's lower-cased email kept in its suppression (the sync never re-creates an erased candidate; docs/privacy.md, Erasure). Set a long random value in production and keep it: a new key forgets the emails' suppressions (the application ids' stay).",
  }),
  INTERVIEW_BASE_URL: Type.Optional(
    Type.String({
      pattern: "^https?://",
      maxLength: 160,
      description: "Base of the candidate interview links the recruiting API issues; default: {api origin}/interview.",
    }),
  ),
  SANDBOX_WEBHOOK_URL: Type.Optional(
    Type.String({ pattern: "^https?://", description: "Receiver base; default: the local proxy's webhooks." }),
  ),
  WORKERS: Type.Boolean({
    default: true,
    description: "Run the durable job workers (webhook events, syncs, write-backs) in the proxy process.",
  }),
  JOBS_FAIR: Type.Boolean({
    default: true,
    description:
      "Fair job queues: interactive work (a connect's first sync, a force-sync, a write-back, a console retry) before webhooks before scheduled background work, and each organisation held to its share of a queue's workers (SYNC_ORG_CONCURRENCY, WRITE_BACK_ORG_CONCURRENCY, WEBHOOK_ORG_CONCURRENCY). false: first come, first served (for comparison only).",
  }),
  JOB_HEARTBEAT_SECONDS: Type.Integer({
    minimum: 10,
    maximum: 3600,
    default: 60,
    description:
      "A running job whose worker sent no heartbeat for this long (its process died) goes back to the queue for another instance. Workers beat every half of it; instances look for such jobs as often (at most every 60 s).",
  }),
});
export type BaseConfig = Static<typeof BaseConfigSchema>;

/** Parses `source` against `schema`: converts strings, applies defaults, lists every problem. */
export function loadConfig<T extends TObject>(schema: T, source: Record<string, string | undefined>): Static<T> {
  // Empty strings mean "unset", as in most .env tooling.
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const raw = source[key];
    if (raw !== undefined && raw !== "") input[key] = raw;
  }
  const value = Value.Default(schema, Value.Convert(schema, input));
  const issues = [...Value.Errors(schema, value)].map((e) => {
    const key = e.path.replace(/^\//, "") || "(root)";
    return `${key}: ${e.message}${key in input ? ` (got ${JSON.stringify(redactIfSecret(key, input[key]))})` : ""}`;
  });
  if (issues.length > 0) throw new ConfigError(issues);
  return Object.freeze(value) as Static<T>;
}

const SECRET_KEYS = /PASSWORD|SECRET|API_KEY|DATABASE_URL|REDIS_URL/;
function redactIfSecret(key: string, value: unknown): unknown {
  return SECRET_KEYS.test(key) ? "<redacted>" : value;
}

/** The operator console's public OAuth client (run contract): the token service registers it, the console signs in with it. */
export const CONSOLE_CLIENT_ID = "hirebridge-console";

/** URLs derived from the run contract, so every service agrees on where the others live. */
export function serviceUrls(config: BaseConfig) {
  const host = config.PUBLIC_HOST ?? config.HOST;
  const origin = (port: number) => `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const authBase = origin(config.AUTH_PORT);
  const sandboxBase = `${origin(config.SANDBOX_PORT)}/v1`;
  return {
    proxy: `${origin(config.PROXY_PORT)}/api/v1`,
    api: `${origin(config.API_PORT)}/api/v1`,
    authOrigin: authBase,
    authUrl: `${authBase}/realms/${config.AUTH_REALM}`,
    issuer: config.AUTH_ISSUER ?? `${authBase}/realms/${config.AUTH_REALM}`,
    sandboxOrigin: origin(config.SANDBOX_PORT),
    sandbox: sandboxBase,
    upstream: config.UPSTREAM_BASE_URL ?? sandboxBase,
    webhookReceiver: config.SANDBOX_WEBHOOK_URL ?? `${origin(config.PROXY_PORT)}/api/v1/webhooks/upstream`,
    /** The operator console's origin; its sign-in comes back to `${console}/auth/callback`. */
    console: origin(config.CONSOLE_PORT),
    /** Base of the interview links the recruiting API issues (and the sync engine, for synced candidates). */
    interview: config.INTERVIEW_BASE_URL ?? `${origin(config.API_PORT)}/interview`,
  };
}
export type ServiceUrls = ReturnType<typeof serviceUrls>;

/** The browser origins the recruiting API and the proxy answer: CORS_ORIGINS, and the operator console's whenever it is a list. */
export function corsOriginsOf(config: BaseConfig): string {
  const list = config.CORS_ORIGINS.split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  if (list.includes("*")) return "*";
  const consoleOrigin = serviceUrls(config).console;
  return [...new Set([...list, consoleOrigin])].join(",");
}
