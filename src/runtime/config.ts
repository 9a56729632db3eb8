import { type Static, type TObject, Type } from "@sinclair/typebox";
import { AuditConfigSchema } from "../services/audit/config.js";
import { ProxyConfigSchema } from "../services/proxy/config.js";
import { RetentionConfigSchema } from "../services/retention/config.js";
import { SandboxConfigSchema } from "../services/sandbox/config.js";
import { SyncConfigSchema } from "../services/sync/config.js";
import { TokenConfigSchema } from "../services/token/config.js";
import { WebhooksOutConfigSchema } from "../services/webhooks-out/config.js";
import { BaseConfigSchema, loadConfig } from "../shared/config.js";
import { SERVICE_ORDER, type ServiceName } from "../shared/service.js";

/**
 * The configuration of each service as the launcher parses it: the shared base
 * (src/shared/config.ts) and the slices each service declares in its folder's `config.ts`,
 * including those of the modules it hosts (the proxy hosts the sync module; the recruiting API and
 * the proxy both record outbound webhooks). `serve <names>` parses the union of its services'
 * schemas; `serve all` every variable, reporting every bad one at once either way.
 */
export const SERVICE_CONFIG = {
  token: compose(BaseConfigSchema, TokenConfigSchema),
  sandbox: compose(BaseConfigSchema, SandboxConfigSchema),
  api: compose(BaseConfigSchema, WebhooksOutConfigSchema, RetentionConfigSchema, AuditConfigSchema),
  proxy: compose(BaseConfigSchema, ProxyConfigSchema, SyncConfigSchema, WebhooksOutConfigSchema, RetentionConfigSchema),
  console: compose(BaseConfigSchema),
} satisfies Record<ServiceName, TObject>;

/** What the service `N` is started with. */
export type ConfigOf<N extends ServiceName> = Static<(typeof SERVICE_CONFIG)[N]>;

/**
 * Every slice, in the order the configuration reference lists them, with who reads it: the
 * README's and docs/operations.md's table (`npm run docs:config`).
 */
export const CONFIG_SLICES: readonly { readBy: string; schema: TObject }[] = [
  { readBy: "all", schema: BaseConfigSchema },
  { readBy: "token", schema: TokenConfigSchema },
  { readBy: "proxy", schema: ProxyConfigSchema },
  { readBy: "proxy (sync)", schema: SyncConfigSchema },
  { readBy: "api, proxy (webhooks out)", schema: WebhooksOutConfigSchema },
  { readBy: "api (retention job), proxy (job queue)", schema: RetentionConfigSchema },
  { readBy: "api (audit log)", schema: AuditConfigSchema },
  { readBy: "sandbox", schema: SandboxConfigSchema },
];

/** Every variable: what `serve all` parses (and what the tests build whole stacks from). */
export const ConfigSchema = compose(
  BaseConfigSchema,
  TokenConfigSchema,
  ProxyConfigSchema,
  SyncConfigSchema,
  WebhooksOutConfigSchema,
  RetentionConfigSchema,
  AuditConfigSchema,
  SandboxConfigSchema,
);
export type Config = Static<typeof ConfigSchema>;

/** One object schema of the slices' variables (a variable is declared in one slice only). */
function compose<const S extends TObject[]>(...slices: S): TObject<Merged<S>> {
  return Type.Object(Object.assign({}, ...slices.map((s) => s.properties))) as TObject<Merged<S>>;
}
type Merged<S extends TObject[]> = S extends [infer H extends TObject, ...infer R extends TObject[]]
  ? H["properties"] & Merged<R>
  : Record<never, never>;

/**
 * Parses what the services `names` read (ConfigError lists every bad variable). Typed as the whole
 * configuration: each service is typed with its own slices (ConfigOf) and reads nothing else, and
 * those are the ones parsed here.
 */
export function loadServiceConfig(names: readonly ServiceName[], source: Record<string, string | undefined>): Config {
  const wanted = SERVICE_ORDER.filter((n) => names.includes(n));
  const schema = Type.Object(Object.assign({}, ...wanted.map((n) => SERVICE_CONFIG[n].properties)));
  return loadConfig(schema, source) as Config;
}
