/**
 * Hirebridge scaled out on this machine (issue 8): two integration proxies and two recruiting APIs,
 * separate `hirebridge serve` processes on their own ports, on one real Postgres and one Redis,
 * behind the token process and the sandbox. The tests show each webhook event processed exactly
 * once whichever proxy receives it, syncs of one integration and model never running at the same
 * time, one shared cache, a SIGKILLed proxy's sync finished by the other, and no request failing
 * while an instance drains on SIGTERM.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { eventually } from "../../helpers/stack.js";
import { Balancer } from "./balancer.js";
import { startCluster, stopInstance, type CapturedWebhook, type Cluster, type Instance } from "./cluster.js";
import { eventJobs, overlaps, storedEvents, syncJobs, syncRuns, syncsSettled, watchConcurrentSyncs } from "./scale-checks.js";
import {
  createIntegration,
  DEMO_ORG_ID,
  deliver,
  demoLogin,
  expectedCandidates,
  json,
  openRedis,
  PROXY_CACHE_PREFIX,
  sandboxConfig,
} from "./scale-client.js";

const enc = encodeURIComponent;
/** Heartbeat of the job queue here: pg-boss's floor, so a killed worker's job is free again within ~15 s. */
const HEARTBEAT_SECONDS = 10;

describe("scale-out: two proxies and two recruiting APIs on one Postgres and Redis", { timeout: 240_000 }, () => {
  let cluster: Cluster;
  let token: string;
  let proxies: [Instance, Instance];
  let apis: [Instance, Instance];
  /** Integrations of the demo organisation created for these tests; the last one is the cache test's. */
  let integrations: string[] = [];
  const workOf = (eventId: string) =>
    [...proxies, ...stopped].flatMap((p) => p.work.filter((w) => w.event_id === eventId && w.status !== undefined).map(() => p.name));
  const stopped: Instance[] = [];

  before(
    async () => {
      cluster = await startCluster({
        env: {
          JOB_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
          // Pages of 20: a sync of a mid-sized integration takes enough pages to be cut in the middle.
          SYNC_PAGE_SIZE: "20",
          // The weekly full sync (Sundays 03:00 UTC) would add runs the tests do not expect; once a year instead.
          SYNC_WEEKLY_CRON: "0 3 1 1 *",
        },
      });
      proxies = cluster.proxies;
      apis = cluster.apis;
      token = await demoLogin(cluster);
    },
    { timeout: 150_000 },
  );
  after(async () => {
    await cluster?.close();
  });

  test("every webhook event is stored once and its work done once, however often and wherever it is delivered", async () => {
    integrations = await Promise.all([30, 30, 30, 30, 0].map((n) => createIntegration(cluster, n)));
    const created = await Promise.all(
      integrations.map((id) => cluster.webhook((w) => w.type === "integration-created" && w.data["id"] === id)),
    );

    // The same event to both proxies, twice each, all at once: at-least-once delivery behind a balancer.
    const answers = await Promise.all(
      created.map((e) => Promise.all([proxies[0], proxies[1], proxies[0], proxies[1]].map((p) => deliver(p, e)))),
    );
    for (const [i, perEvent] of answers.entries()) {
      assert.deepEqual(
        perEvent.map((a) => a.status),
        [200, 200, 200, 200],
        JSON.stringify(perEvent),
      );
      const stored = perEvent.filter((a) => a.body.message === "stored; work queued");
      assert.equal(stored.length, 1, `exactly one delivery of ${created[i]!.id} stored it: ${JSON.stringify(perEvent)}`);
      for (const a of perEvent.filter((x) => x !== stored[0]))
        assert.match(a.body.message ?? "", new RegExp(`^duplicate delivery of event ${created[i]!.id}: `));
    }
    await eventually("the first events' work to be done", async () =>
      (
        await storedEvents(
          cluster,
          created.map((e) => e.id),
        )
      ).every((r) => r.status !== "queued")
        ? true
        : undefined,
    );
    await syncsSettled(cluster, integrations);

    // Distinct events (the sandbox's data-changed after an ATS write), spread over both proxies, each delivered again to the other.
    await Promise.all(
      integrations
        .slice(0, 4)
        .map((id, i) =>
          json(`${cluster.sandboxOrigin}/sandbox/integrations/${enc(id)}/jobs`, { method: "POST", body: { name: `Scale job ${i}` } }),
        ),
    );
    const changed = await Promise.all(
      integrations.slice(0, 4).map((id) => cluster.webhook((w) => w.type === "data-changed" && w.data["integration_id"] === id)),
    );
    const first = await Promise.all(changed.map((e, i) => deliver(proxies[i % 2]!, e)));
    assert.deepEqual(
      first.map((a) => [a.status, a.body.message]),
      changed.map(() => [200, "stored; work queued"]),
    );
    const again = await Promise.all(changed.map((e, i) => deliver(proxies[(i + 1) % 2]!, e)));
    for (const [i, a] of again.entries())
      assert.match(a.body.message ?? "", new RegExp(`^duplicate delivery of event ${changed[i]!.id}: `));

    const events: CapturedWebhook[] = [...created, ...changed];
    const ids = events.map((e) => e.id);
    const rows = await eventually("every event's work to be done", async () => {
      const stored = await storedEvents(cluster, ids);
      return stored.length === ids.length && stored.every((r) => r.status !== "queued") ? stored : undefined;
    });
    for (const e of events) {
      const row = rows.find((r) => r.id === e.id)!;
      assert.equal(row.type, e.type);
      assert.equal(row.status, "processed", `${e.id}: ${row.message}`);
      assert.equal(row.attempts, 0, `${e.id} never failed an attempt`);
      assert.deepEqual(await eventJobs(cluster, e.id), [{ state: "completed", retry_count: 0 }], `${e.id} was queued once and run once`);
      assert.equal(workOf(e.id).length, 1, `${e.id}'s work ran in exactly one process: ${JSON.stringify(workOf(e.id))}`);
    }
    // Each integration-created started exactly one full sync: jobs, then applications.
    const runs = await syncsSettled(cluster, integrations);
    for (const id of integrations) {
      const firstSyncs = runs.filter((r) => r.integration_id === id && r.trigger === "integration-created");
      assert.deepEqual(
        firstSyncs.map((r) => [r.model, r.type, r.state]).sort(),
        [
          ["applications", "FULL", "succeeded"],
          ["jobs", "FULL", "succeeded"],
        ],
        id,
      );
    }
    // Each data-changed queued (or joined) an incremental sync of this integration's jobs.
    for (const e of changed) {
      const runId = /sync ([0-9a-f-]{36}) queued/.exec(rows.find((r) => r.id === e.id)!.message ?? "")?.[1];
      const run = runs.find((r) => r.id === runId);
      assert.ok(run && run.integration_id === e.data["integration_id"] && run.model === "jobs", `${e.id} → ${runId}`);
    }
  });

  test("syncs of one integration and model never run at the same time, however many triggers reach both proxies", async (t) => {
    const targets = integrations.slice(0, 4);
    // Upstream answers slow enough that triggers arrive while runs are under way.
    await sandboxConfig(cluster, { latency_ms: 30 });
    const watch = watchConcurrentSyncs(cluster);
    const trigger = (id: string, n: number) =>
      json<{ message: string }>(`${proxies[n % 2]!.origin}/api/v1/webhooks/sync-all?integration_id=${enc(id)}`, { method: "POST", token });
    const since = new Date();
    try {
      for (let burst = 0; burst < 3; burst++) {
        // Six triggers per integration at once, three to each proxy; the next burst once this one's runs have started.
        const answers = await Promise.all(targets.flatMap((id) => Array.from({ length: 6 }, (_, n) => trigger(id, n))));
        assert.ok(
          answers.every((a) => a.status === 200),
          JSON.stringify(answers.find((a) => a.status !== 200)?.body),
        );
        const named = [...new Set(answers.map((a) => a.body.message))];
        await eventually("this burst's runs to start", async () => {
          const runs = await cluster.sql<{ state: string }>("select state from sync_runs where id = any($1)", [named]);
          return runs.every((r) => r.state !== "queued") ? true : undefined;
        });
      }
    } finally {
      await sandboxConfig(cluster, { latency_ms: 0 });
    }
    const runs = (await syncsSettled(cluster, targets)).filter((r) => r.started_at && r.started_at >= since);
    const { samples, violations } = await watch.stop();
    assert.deepEqual(violations, [], `seen in ${samples} samples`);
    assert.deepEqual(overlaps(await syncRuns(cluster, targets)), []);
    assert.ok(
      runs.every((r) => r.state === "succeeded"),
      JSON.stringify(runs.filter((r) => r.state !== "succeeded")),
    );
    for (const id of targets) {
      // A run per burst at least (each came once the last had started); triggers meeting a queued run joined it.
      const jobsRuns = runs.filter((r) => r.integration_id === id && r.model === "jobs");
      assert.ok(jobsRuns.length >= 3 && jobsRuns.length < 18, `${id}: ${jobsRuns.length} jobs runs from 18 triggers`);
    }
    // Every run finished once, in one process; say how the work was shared.
    const finishedBy = new Map<string, string[]>();
    for (const p of proxies)
      for (const w of p.work.filter((x) => x.msg === "sync run succeeded"))
        finishedBy.set(w.sync_run!, [...(finishedBy.get(w.sync_run!) ?? []), p.name]);
    for (const r of runs) assert.equal(finishedBy.get(r.id)?.length, 1, `run ${r.id} finished by ${JSON.stringify(finishedBy.get(r.id))}`);
    const share = proxies.map((p) => `${p.name}: ${runs.filter((r) => finishedBy.get(r.id)?.[0] === p.name).length}`);
    t.diagnostic(`sync runs finished per proxy — ${share.join(", ")}`);
  });

  test("the cache is shared: what one proxy loaded, the other serves, and an eviction reaches both", async () => {
    const id = integrations.at(-1)!;
    const redis = openRedis();
    try {
      const key = `${PROXY_CACHE_PREFIX}integration:${id}`;
      await redis.del(key); // this run's own integration: nothing else uses the key
      const viaA = await json<{ data: { id: string; status: string } }>(`${proxies[0].origin}/api/v1/integrations/${enc(id)}`, { token });
      assert.equal(viaA.status, 200, viaA.text);
      assert.equal(viaA.headers.get("x-cache"), "MISS");
      const viaB = await json(`${proxies[1].origin}/api/v1/integrations/${enc(id)}`, { token });
      assert.equal(viaB.status, 200);
      assert.equal(viaB.headers.get("x-cache"), "HIT", "proxy B answers from the entry proxy A stored");
      assert.equal(viaB.text, viaA.text);
      const ttl = await redis.ttl(key);
      assert.ok(ttl > 0 && ttl <= 60, `the shared entry lives INTEGRATION_CACHE_TTL_SECONDS (ttl ${ttl})`);

      // The upstream reports a state change to proxy B; proxy A's next answer is fresh.
      await json(`${cluster.sandboxOrigin}/sandbox/integrations/${enc(id)}/state`, { method: "PUT", body: { state: "INACTIVE" } });
      const changed = await cluster.webhook((w) => w.type === "integration-state-changed" && w.data["integration_id"] === id);
      assert.equal((await deliver(proxies[1], changed)).status, 200);
      await eventually("the state change to be processed", async () =>
        (await storedEvents(cluster, [changed.id]))[0]?.status === "processed" ? true : undefined,
      );
      const fresh = await json<{ data: { status: string } }>(`${proxies[0].origin}/api/v1/integrations/${enc(id)}`, { token });
      assert.equal(fresh.headers.get("x-cache"), "MISS");
      assert.equal(fresh.body.data.status, "INACTIVE");
      const again = await json(`${proxies[1].origin}/api/v1/integrations/${enc(id)}`, { token });
      assert.equal(again.headers.get("x-cache"), "HIT");
      assert.equal(again.text, fresh.text);
    } finally {
      redis.disconnect();
    }
  });

  test("SIGKILL mid-sync: the other proxy takes the job over after the heartbeat lapses and finishes the same run", async () => {
    const id = await createIntegration(cluster, 1200);
    const expected = await expectedCandidates(cluster, id);
    // Slow upstream answers keep the run going long enough to be cut in the middle.
    await sandboxConfig(cluster, { latency_ms: 60 });
    try {
      const event = await cluster.webhook((w) => w.type === "integration-created" && w.data["id"] === id);
      assert.equal((await deliver(proxies[0], event)).status, 200);
      const run = await eventually(
        "the applications run to write pages",
        async () => (await syncRuns(cluster, [id])).find((r) => r.model === "applications" && r.state === "running" && r.pages >= 2),
        60_000,
      );
      // The proxy that started the run is the one working on it (its log names the run).
      const victim = await eventually(
        `a proxy to log the start of run ${run.id}`,
        async () => proxies.find((p) => p.work.some((w) => w.sync_run === run.id && w.msg === "sync run started")),
        10_000,
      );
      const survivor = proxies.find((p) => p !== victim)!;
      victim.child.kill("SIGKILL");
      const killedAt = new Date();
      assert.deepEqual(await victim.exited, { code: null, signal: "SIGKILL" });
      stopped.push(victim);
      const pagesAtKill = (await syncRuns(cluster, [id])).find((r) => r.id === run.id)!.pages;

      // The survivor resumes the run from its last written page once the killed worker's heartbeat lapses.
      const resumed = await eventually(
        "the survivor to resume the run",
        async () => survivor.work.find((w) => w.sync_run === run.id && w.msg === "resuming sync run from its last page"),
        (HEARTBEAT_SECONDS + 30) * 1000,
      );
      assert.ok((resumed.pages_done ?? 0) >= pagesAtKill, `resumed at page ${resumed.pages_done}, ${pagesAtKill} written before the kill`);
      // An orchestrator replaces the killed instance meanwhile (the SIGTERM test needs two proxies again).
      const replacement = cluster.replace(victim);
      replacement.catch(() => {}); // awaited below; a failure surfaces there
      const done = (await syncsSettled(cluster, [id], 90_000)).find((r) => r.id === run.id)!;
      assert.equal(done.state, "succeeded", done.last_error ?? "");
      assert.ok(done.started_at! < killedAt && done.finished_at! > killedAt, "one run spans the kill: resumed, not restarted");
      const candidates = await cluster.sql<{ n: number }>(
        "select count(*)::int as n from candidates c join positions p on p.id = c.position_id where p.upstream_integration_id = $1",
        [id],
      );
      assert.equal(candidates[0]!.n, expected, "every interview-stage applicant became a candidate");
      assert.equal(done.created_count, expected, "each page was written once: created counts every candidate once");
      assert.equal(done.updated_count, 0, "no page was written twice");
      const jobs = await syncJobs(cluster, id, "applications");
      assert.deepEqual(
        jobs.map((j) => j.state),
        ["completed"],
        "the one queue job of the run completed",
      );
      assert.ok(jobs[0]!.retry_count >= 1, "after the killed attempt lapsed");
      proxies = [survivor, await replacement];
    } finally {
      await sandboxConfig(cluster, { latency_ms: 0 });
    }
  });

  test("SIGTERM: an API and a proxy drain while traffic flows; no request fails and both exit 0", async (t) => {
    const integration = integrations[0]!;
    const positions = await json<{ items: { id: string }[] }>(`${apis[0].origin}/api/v1/org/${DEMO_ORG_ID}/position?limit=5`, { token });
    assert.equal(positions.status, 200);
    const positionId = positions.body.items[0]!.id;
    const headers = { authorization: `Bearer ${token}` };
    const apiLb = new Balancer(apis.map((a) => ({ name: a.name, origin: a.origin })));
    const proxyLb = new Balancer(proxies.map((p) => ({ name: p.name, origin: p.origin })));
    const paths = {
      api: [`/api/v1/org/${DEMO_ORG_ID}/position/${positionId}`, `/api/v1/org/${DEMO_ORG_ID}/position?limit=5`],
      proxy: [`/api/v1/ats/jobs?integration_id=${enc(integration)}&page_size=5`, `/api/v1/integrations/${enc(integration)}`],
    };
    let running = true;
    const statuses: number[] = [];
    const client = async (lb: Balancer, list: string[]) => {
      for (let n = 0; running; n++) {
        const res = await lb.send(list[n % list.length]!, { headers });
        if (res) statuses.push(res.status);
      }
    };
    const clients = [
      ...Array.from({ length: 4 }, () => client(apiLb, paths.api)),
      ...Array.from({ length: 4 }, () => client(proxyLb, paths.proxy)),
    ];
    try {
      await sleep(1500);
      const [apiExit, proxyExit] = await Promise.all([stopInstance(apis[0]), stopInstance(proxies[0])]);
      await sleep(500);
      running = false;
      await Promise.all(clients);
      assert.deepEqual(apiExit, { code: 0, signal: null }, apis[0].output());
      assert.deepEqual(proxyExit, { code: 0, signal: null }, proxies[0].output());
      stopped.push(apis[0], proxies[0]);
      assert.deepEqual([...apiLb.failures, ...proxyLb.failures], [], "no request failed");
      assert.equal(apiLb.serverErrors() + proxyLb.serverErrors(), 0, JSON.stringify([apiLb.served, proxyLb.served]));
      assert.ok(statuses.length > 50 && statuses.every((s) => s === 200), `${statuses.length} answers, all 200`);
      for (const [lb, name] of [
        [apiLb, apis[0].name],
        [proxyLb, proxies[0].name],
      ] as const) {
        assert.ok((lb.served[name]?.[200] ?? 0) > 0, `${name} served before it stopped`);
        assert.ok(lb.rerouted > 0, `the balancer moved ${name}'s share once it refused connections`);
      }
      t.diagnostic(
        `answers: ${JSON.stringify({ api: apiLb.served, proxy: proxyLb.served })}; rerouted ${apiLb.rerouted + proxyLb.rerouted}`,
      );
    } finally {
      running = false;
      await Promise.all(clients);
      await Promise.all([apiLb.close(), proxyLb.close()]);
    }
  });
});
