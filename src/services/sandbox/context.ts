/**
 * What the sandbox's routes share: its dependencies (from the configuration or a test), the store,
 * the run-time settings, the webhook sender and the limiters. Built once per app in app.ts.
 */
import type { FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { AtsModelName } from "../../contracts/upstream/index.js";
import { ConcurrencyTracker, RateLimiter } from "./limits/rate-limiter.js";
import { FaultInjector } from "./limits/faults.js";
import type { RuntimeSettings } from "./limits/runtime-settings.js";
import type { Integration, SandboxStore } from "./store/sandbox-store.js";
import { dataChanged } from "./webhooks/events.js";
import type { WebhookRetryPolicy, WebhookSender } from "./webhooks/webhook-sender.js";

export type SandboxDeps = {
  logger: Logger;
  seed: number;
  /** Applications of the demo integration (from a handful to 100,000s). */
  applications: number;
  /** The API key the sandbox accepts (`Authorization: Bearer <key>`). */
  apiKey: string;
  /** Signs webhooks (HMAC-SHA256, base64url). */
  webhookSecret: string;
  /** Receiver base URL (events go to `<base>/<type>`); null disables delivery. */
  webhookUrl: string | null;
  /** Owner of the demo integration: its `end_user.origin_id`. */
  demoOrgId: string;
  demoOrgName?: string;
  /** Origin used in the links the sandbox hands out; default: the origin the request came to. */
  publicOrigin?: string;
  latencyMs?: number;
  rateLimitPerSecond?: number;
  concurrencyLimit?: number;
  faultRate?: number;
  webhookRetry?: Partial<WebhookRetryPolicy>;
  /** File that keeps the state across restarts (under DATA_DIR); unset: in memory only. */
  stateFile?: string;
  /** How long a force-sync runs before sync-finished is sent. */
  syncDurationMs?: number;
  clock?: () => number;
};

export type SandboxContext = {
  deps: SandboxDeps;
  store: SandboxStore;
  settings: RuntimeSettings;
  webhooks: WebhookSender;
  limiter: RateLimiter;
  concurrency: ConcurrencyTracker;
  faults: FaultInjector;
  demoIntegrationId: string;
  clock: () => number;
  /** Tells persistence that the state changed (a no-op without a state file). */
  changed: () => void;
  /** Timers of running syncs, cleared on close. */
  timers: Set<NodeJS.Timeout>;
};

/** The origin to put in links: the configured public one, else the one this request reached. */
export function originOf(ctx: SandboxContext, request: FastifyRequest): string {
  return ctx.deps.publicOrigin ?? `${request.protocol}://${request.host}`;
}

/** Records a change for the next DELTA sync and tells the receiver now (data-changed). */
export function announceChange(ctx: SandboxContext, integration: Integration, models: AtsModelName[]): void {
  for (const m of models) integration.sync.changedSinceSync.add(m);
  ctx.webhooks.send("data-changed", dataChanged(integration, models));
}

export function createSandboxContextParts(deps: SandboxDeps): {
  settings: RuntimeSettings;
  limiter: RateLimiter;
  concurrency: ConcurrencyTracker;
  faults: FaultInjector;
} {
  const settings: RuntimeSettings = {
    latency_ms: deps.latencyMs ?? 0,
    rate_limit_per_second: deps.rateLimitPerSecond ?? 0,
    rate_limit_path_prefix: null,
    concurrency_limit: deps.concurrencyLimit ?? 30,
    fault_rate: deps.faultRate ?? 0,
    fault_kinds: ["500", "503"],
    fault_timeout_ms: 30_000,
    fault_path_prefix: null,
    fail_next: 0,
    webhook_url: deps.webhookUrl,
  };
  return {
    settings,
    limiter: new RateLimiter(deps.clock),
    concurrency: new ConcurrencyTracker(),
    faults: new FaultInjector(settings),
  };
}
