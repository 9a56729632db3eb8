import type { AddressInfo } from "node:net";
import { after, before } from "node:test";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import { createWebhooksOut, type WebhooksOut } from "../../../src/services/webhooks-out/module.js";
import type { Resolve } from "../../../src/services/webhooks-out/targets.js";
import type { Database } from "../../../src/shared/db/database.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { startTestIdentity, type TestIdentity } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { call } from "../../helpers/stack.js";
import type { WebhookEndpointCreated } from "../../../src/contracts/webhooks-out/endpoints.js";
import { type Receiver, startReceiver } from "./receiver.js";
import assert from "node:assert/strict";

export type Caller = {
  orgId: string;
  token: string;
  /** JSON over HTTP to the recruiting API, `path` under /api/v1. */
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** The same under /api/v1/org/{its org}. */
  org<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
};

export type WebhooksHarness = {
  apiUrl: string;
  database: Database;
  webhooks: WebhooksOut;
  app: App;
  login(orgId?: string): Promise<Caller>;
};

/**
 * The recruiting API with outbound webhooks, listening on a free port, its tokens from the real
 * token service: what a customer's code talks to. Set up in `before`, torn down in `after`.
 */
export function useWebhooksApi(
  getDb: () => Database,
  opts: { config?: Record<string, string | number>; resolve?: Resolve } = {},
): () => WebhooksHarness {
  let harness: WebhooksHarness | undefined;
  let identity: TestIdentity | undefined;
  before(async () => {
    const database = getDb();
    identity = await startTestIdentity(database);
    const config = testConfig(opts.config);
    const logger = silentLogger();
    const webhooks = createWebhooksOut({ config, database, logger, ...(opts.resolve ? { resolve: opts.resolve } : {}) });
    await webhooks.start();
    const app = await buildRecruitingApp({
      config,
      database,
      logger,
      verify: identity.verify,
      events: webhooks.events,
      modules: [webhooks.routes],
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const apiUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
    const id = identity;
    harness = {
      apiUrl,
      database,
      webhooks,
      app,
      async login(orgId) {
        const session = await id.login(orgId ? { orgId } : {});
        const as = <T>(method: string, path: string, body?: unknown) =>
          call<T>(`${apiUrl}${path}`, { method, token: session.accessToken, ...(body === undefined ? {} : { body }) });
        return {
          orgId: session.orgId,
          token: session.accessToken,
          call: as,
          org: (method, path, body) => as(method, `/org/${session.orgId}${path}`, body),
        };
      },
    };
  });
  after(async () => {
    await harness?.app.close();
    await harness?.webhooks.close();
    await identity?.close();
  });
  return () => {
    if (!harness) throw new Error("harness not started yet");
    return harness;
  };
}

const receivers: Receiver[] = [];
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** A receiver closed after the file's tests. */
export async function startTestReceiver(): Promise<Receiver> {
  const rx = await startReceiver();
  receivers.push(rx);
  return rx;
}

/** A receiver verifying with the secret of a new endpoint of `who` (all event types unless `types`). */
export async function subscribe(who: Caller, types?: string[]): Promise<{ rx: Receiver; endpoint: WebhookEndpointCreated }> {
  const rx = await startTestReceiver();
  const created = await who.org<WebhookEndpointCreated>("POST", "/webhook-endpoints", {
    url: rx.url,
    ...(types ? { event_types: types } : {}),
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  rx.secrets.push(created.body.secret);
  return { rx, endpoint: created.body };
}
