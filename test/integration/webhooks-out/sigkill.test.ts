import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { WebhookEndpointCreated } from "../../../src/contracts/webhooks-out/endpoints.js";
import { openDatabase } from "../../../src/shared/db/database.js";
import { dropSchemas } from "../../../src/shared/db/pg-schemas.js";
import { startTestIdentity } from "../../helpers/auth.js";
import { DB_KINDS, freshDatabase, TEST_DATABASE_URL } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { call } from "../../helpers/stack.js";
import { spawnServe, stopInstance, waitHealthy, type Instance } from "../scale/cluster.js";
import { startReceiver } from "./receiver.js";

const CHANGES = 60;

/**
 * A real `hirebridge serve api` process is SIGKILLed while deliveries are in flight (the receiver
 * holds each answer a moment), then started again on the same storage. Every committed event must
 * reach the receiver, verified with the `standardwebhooks` package; an event may arrive twice, but
 * only as the same `webhook-id` with the same body.
 */
for (const kind of DB_KINDS) {
  test(`[${kind}] a process SIGKILLed mid-delivery and restarted delivers every committed event`, { timeout: 240_000 }, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), "hirebridge-webhooks-kill-"));
    const schema = `wh_kill_${process.pid}_${randomBytes(3).toString("hex")}`;
    const identityDb = await freshDatabase("pglite");
    const identity = await startTestIdentity(identityDb);
    const rx = await startReceiver();
    let inFlight = 0;
    rx.answer = async () => {
      inFlight++;
      await new Promise((r) => setTimeout(r, 150));
      inFlight--;
      return 200;
    };
    const port = await freePort();
    const env: Record<string, string> = {
      HOST: "127.0.0.1",
      API_PORT: String(port),
      LOG_LEVEL: "warn",
      DATA_DIR: dataDir,
      AUTH_ISSUER: identity.issuer,
      RATE_LIMIT_PER_MINUTE: "0",
      WEBHOOK_TARGETS: "loopback",
      // A killed process's claims go to the next one after this long.
      WEBHOOK_LEASE_SECONDS: "2",
      WEBHOOK_TIMEOUT_MS: "1000",
      ...(kind === "postgres" ? { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema } : {}),
    };
    const instances: Instance[] = [];
    const start = async () => {
      const instance = spawnServe(`api-${instances.length}`, ["api"], port, env);
      instances.push(instance);
      await waitHealthy(instance, 180_000);
      return instance;
    };
    t.after(async () => {
      for (const i of instances) await stopInstance(i);
      await rx.close();
      await identity.close();
      await identityDb.dispose();
      if (kind === "postgres") await dropSchemas(TEST_DATABASE_URL, schema).catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    });

    let current = await start();
    const user = await identity.login();
    const api = (path: string, body?: unknown) =>
      call<{ id: string; secret: string }>(`http://127.0.0.1:${port}/api/v1/org/${user.orgId}${path}`, {
        method: body === undefined ? "GET" : "POST",
        token: user.accessToken,
        ...(body === undefined ? {} : { body }),
      });
    const endpoint = await api("/webhook-endpoints", { url: rx.url });
    assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
    rx.secrets.push((endpoint.body as unknown as WebhookEndpointCreated).secret);

    // Changes, one after another (each acknowledged is committed); then, while their deliveries
    // are still under way (the receiver holds each answer), the process is killed.
    const change = async (n: number) => assert.equal((await api("/position", { name: `P${n}` })).status, 200);
    for (let n = 0; n < CHANGES / 2; n++) await change(n);
    await until(() => inFlight > 0);
    current.child.kill("SIGKILL");
    await current.exited;
    current = await start();
    for (let n = CHANGES / 2; n < CHANGES; n++) await change(n);

    // Every event committed (the outbox, read once the process has stopped) arrives.
    const committed = await eventIds(kind, env, dataDir, schema, async () => {
      await rx.waitFor((d) => new Set(d.map((x) => x.id)).size >= CHANGES, 60_000).catch(() => {});
      await stopInstance(current);
    });
    assert.equal(committed.length, CHANGES, "one event per change");
    const received = new Map<string, string>();
    for (const d of rx.deliveries) {
      assert.deepEqual(d.verifiedWith, [0], "verified with standardwebhooks");
      const before = received.get(d.id);
      if (before !== undefined) assert.equal(d.body, before, "a duplicate is the same message");
      received.set(d.id, d.body);
    }
    assert.deepEqual(
      committed.filter((id) => !received.has(id)),
      [],
      "no committed event missing",
    );
    assert.deepEqual(
      [...received.keys()].filter((id) => !committed.includes(id)),
      [],
      "nothing delivered that was not committed",
    );
  });
}

/** Resolves once `done()` holds (looked at every 5 ms, up to 30 s). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 6000 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(done(), "the condition never held");
}

/** The ids of the events in the outbox, read after `stop` (PGlite's files are the process's while it runs). */
async function eventIds(
  kind: string,
  env: Record<string, string>,
  dataDir: string,
  schema: string,
  stop: () => Promise<void>,
): Promise<string[]> {
  await stop();
  const database = await openDatabase(
    kind === "postgres" ? { url: env["DATABASE_URL"], schema, poolSize: 1 } : { dataDir: join(dataDir, "pglite") },
  );
  try {
    return (await database.query<{ id: string }>("select id from webhook_messages order by id")).map((r) => r.id);
  } finally {
    await database.close();
  }
}
