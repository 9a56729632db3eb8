import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { signWebhookBody } from "../../../src/shared/upstream/webhook-signature.js";
import { dropSchemas, jobQueueSchema } from "../../../src/shared/db/pg-schemas.js";
import { startTestIdentity } from "../../helpers/auth.js";
import { freshDatabase, TEST_DATABASE_URL } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { startSandbox } from "../../helpers/sandbox.js";
import { eventually } from "../../helpers/stack.js";
import { spawnServe, stopInstance, waitHealthy, type Instance } from "../scale/cluster.js";

const EVENTS = 2000;
const SENDERS = 8;

/**
 * An at-least-once sender (as the upstream is: it resends until it gets a 200) streams signed events
 * to a real `hirebridge serve proxy` process on the machine's Postgres, faster than
 * RATE_LIMIT_PER_MINUTE allows one caller, while the process is killed with SIGKILL twice and
 * started again on the same port. Every acknowledged event must be stored once and processed once,
 * with nothing left queued or failed in the table or the job queue, and no delivery refused for rate.
 */
test(`${EVENTS} signed events, proxy SIGKILLed twice mid-stream: every acknowledged event stored once and processed once`, {
  timeout: 120_000,
}, async (t) => {
  const schema = `chaos_${process.pid}_${randomBytes(3).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2, options: `-c search_path=${schema}` });
  admin.on("error", () => {});
  await admin.query(`create schema ${schema}`);
  const dataDir = mkdtempSync(join(tmpdir(), "hirebridge-chaos-"));
  const identityDb = await freshDatabase("pglite");
  const identity = await startTestIdentity(identityDb);
  const sandbox = await startSandbox({ applications: 5 });
  const port = await freePort();
  const env: Record<string, string> = {
    HOST: "127.0.0.1",
    PROXY_PORT: String(port),
    LOG_LEVEL: "info",
    DATA_DIR: dataDir,
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: schema,
    AUTH_ISSUER: identity.issuer,
    UPSTREAM_BASE_URL: sandbox.url,
    UPSTREAM_API_KEY: sandbox.apiKey,
    UPSTREAM_WEBHOOK_SECRET: sandbox.webhookSecret,
    // The job of a killed process goes back to the queue after this long (the minimum).
    JOB_HEARTBEAT_SECONDS: "10",
    RATE_LIMIT_PER_MINUTE: "1200",
  };
  const instances: Instance[] = [];
  const start = async () => {
    const instance = spawnServe(`proxy-${instances.length}`, ["proxy"], port, env);
    instances.push(instance);
    await waitHealthy(instance);
    return instance;
  };
  t.after(async () => {
    for (const i of instances) await stopInstance(i);
    await sandbox.close();
    await identity.close();
    await identityDb.dispose();
    await dropSchemas(TEST_DATABASE_URL, schema).catch(() => {});
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let current = await start();
  const ids = Array.from({ length: EVENTS }, () => randomBytes(12).toString("base64url"));
  const acknowledged = new Set<string>();
  const refusals: Record<string, number> = {};
  let attempts = 0;
  let next = 0;
  const sender = async () => {
    for (;;) {
      const id = ids[next++];
      if (id === undefined) return;
      const raw = JSON.stringify({
        id,
        type: "connection-flow-failed",
        data: { integration_tool: "greenhouse", integration_category: "ATS", end_user: { origin_id: sandbox.demoOrgId } },
      });
      const signature = signWebhookBody(raw, sandbox.webhookSecret);
      for (let attempt = 0; ; attempt++) {
        attempts++;
        const status = await fetch(`http://127.0.0.1:${port}/api/v1/webhooks/upstream/connection-flow-failed`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-kombo-signature": signature },
          body: raw,
          signal: AbortSignal.timeout(10_000),
        }).then(
          async (res) => {
            await res.arrayBuffer();
            return res.status;
          },
          (err: Error) => (err.cause as { code?: string } | undefined)?.code ?? err.name,
        );
        if (status === 200) {
          acknowledged.add(id);
          break;
        }
        refusals[String(status)] = (refusals[String(status)] ?? 0) + 1;
        await sleep(Math.min(50 * 2 ** attempt, 500));
      }
    }
  };
  const killer = async () => {
    for (const at of [Math.floor(EVENTS * 0.3), Math.floor(EVENTS * 0.65)]) {
      while (acknowledged.size < at) await sleep(5);
      current.child.kill("SIGKILL");
      await current.exited;
      current = await start();
    }
  };
  const sendStarted = Date.now();
  await Promise.all([...Array.from({ length: SENDERS }, sender), killer()]);
  const sendMs = Date.now() - sendStarted;

  const boss = jobQueueSchema(schema);
  // A killed process's active jobs go back to the queue once their heartbeat is overdue (10 s).
  const settled = await eventually(
    "every event settled and every job done",
    async () => {
      const [row] = (
        await admin.query<{ queued: number; pending: number }>(
          `select (select count(*)::int from webhook_events where status = 'queued') as queued,
                  (select count(*)::int from ${boss}.job where name = 'webhook-events' and state in ('created', 'retry', 'active')) as pending`,
        )
      ).rows;
      return row!.queued === 0 && row!.pending === 0 ? true : undefined;
    },
    60_000,
  ).catch((err: Error) => err.message);
  const byStatus = Object.fromEntries(
    (await admin.query<{ status: string; n: number }>("select status, count(*)::int as n from webhook_events group by status")).rows.map(
      (r) => [r.status, r.n],
    ),
  );
  const [{ stored, distinct }] = (
    await admin.query<{ stored: number; distinct: number }>(
      "select count(*)::int as stored, count(distinct id)::int as distinct from webhook_events where id = any($1)",
      [[...acknowledged]],
    )
  ).rows as [{ stored: number; distinct: number }];
  const jobs = Object.fromEntries(
    (
      await admin.query<{ state: string; n: number }>(
        `select state, count(*)::int as n from ${boss}.job where name = 'webhook-events' group by state`,
      )
    ).rows.map((r) => [r.state, r.n]),
  );
  // A settled event's work logs one line with its outcome; several would mean it ran twice.
  const processedLogs = new Map<string, number>();
  for (const i of instances)
    for (const w of i.work) if (w.event_id && w.status) processedLogs.set(w.event_id, (processedLogs.get(w.event_id) ?? 0) + 1);
  const twice = [...processedLogs].filter(([, n]) => n > 1).length;
  const kills = instances.filter((i) => i.child.signalCode === "SIGKILL").length;
  console.log(
    `sigkill chaos: sent ${EVENTS} events in ${sendMs} ms (${attempts} attempts, refused/failed ${JSON.stringify(refusals)}), ${kills} SIGKILLs; ` +
      `acknowledged ${acknowledged.size}, stored ${stored} (${distinct} distinct), processed ${byStatus["processed"] ?? 0}, events by status ${JSON.stringify(byStatus)}, ` +
      `jobs by state ${JSON.stringify(jobs)}, processed twice ${twice}, lost ${acknowledged.size - stored}`,
  );
  assert.equal(settled, true);
  assert.equal(kills, 2);
  assert.equal(acknowledged.size, EVENTS);
  assert.equal(refusals["429"], undefined, "no delivery was refused for rate");
  assert.equal(stored, EVENTS, "every acknowledged event is stored");
  assert.equal(distinct, EVENTS, "once");
  assert.deepEqual(byStatus, { processed: EVENTS }, "every event processed, none queued or failed");
  assert.equal(twice, 0, "no event's work settled twice");
  for (const state of ["created", "retry", "active", "failed"]) assert.equal(jobs[state] ?? 0, 0, `no job left ${state}`);
});
