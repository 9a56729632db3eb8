/**
 * The embedded stack as `npm start` runs it, stopped with SIGTERM and started again on the same
 * DATA_DIR: Hirebridge's storage (PGlite) and the sandbox's state (its state file) come back
 * together, so a written-back application and an integration connected through the connect page
 * look the same on both sides after the restart.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort } from "../../helpers/ports.js";
import { call, connectThroughPage, eventually } from "../../helpers/stack.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

type SandboxApplication = { current_stage: { name: string } | null; notes: { content: string }[]; result_links: { url: string }[] };
type Position = { id: string; candidate_stage?: string | null; upstream_integration_id?: string | null };
type Candidate = { id: string; upstream_application_id?: string | null; interview_link?: string };

let env: Record<string, string>;
let dataDir: string;
let child: ChildProcess | undefined;
let urls: { auth: string; api: string; proxy: string; sandbox: string };

async function startServe(): Promise<void> {
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve", "all"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  proc.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  child = proc;
  await eventually(
    "the stack to start",
    async () => {
      if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}: ${stderr}`);
      const ok = await Promise.all(
        [urls.proxy, urls.api, urls.sandbox].map(async (u) => (await fetch(`${new URL(u).origin}/healthz`).catch(() => null))?.ok),
      );
      return ok.every(Boolean) ? true : undefined;
    },
    90_000,
  );
}

async function stopServe(): Promise<number | null> {
  const proc = child!;
  child = undefined;
  const exited = once(proc, "exit");
  proc.kill("SIGTERM");
  const [code] = (await exited) as [number | null];
  return code;
}

async function login(): Promise<string> {
  const res = await fetch(`${urls.auth}/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "password", client_id: "hirebridge", username: "demo", password: "demo-password" }),
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { access_token: string }).access_token;
}

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "hirebridge-restart-"));
  const ports = { AUTH_PORT: await freePort(), API_PORT: await freePort(), PROXY_PORT: await freePort(), SANDBOX_PORT: await freePort() };
  env = {
    PATH: process.env["PATH"] ?? "",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    LOG_FORMAT: "json",
    PASSWORD_HASH_SCRYPT_N: "1024",
    SANDBOX_APPLICATIONS: "40",
    RATE_LIMIT_PER_MINUTE: "0",
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
  };
  urls = {
    auth: `http://127.0.0.1:${ports.AUTH_PORT}/realms/hirebridge`,
    api: `http://127.0.0.1:${ports.API_PORT}/api/v1`,
    proxy: `http://127.0.0.1:${ports.PROXY_PORT}/api/v1`,
    sandbox: `http://127.0.0.1:${ports.SANDBOX_PORT}`,
  };
});
after(async () => {
  if (child) await stopServe();
  await rm(dataDir, { recursive: true, force: true });
});

test("after a write-back and a connect-flow integration, a SIGTERM restart keeps Hirebridge and the sandbox in step", async () => {
  await startServe();
  let token = await login();
  const orgId = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).org_id as string;

  // An integration connected through the sandbox's connect page, activated for the demo org.
  const connected = await connectThroughPage(urls.proxy, token, "lever");

  // Its first sync (started by integration-created) links its jobs to positions with candidates.
  const { position, candidate } = await eventually(
    "synced candidates",
    async () => {
      const positions = await call<{ items: Position[] }>(`${urls.api}/org/${orgId}/position?limit=100`, { token });
      for (const p of positions.body.items.filter((x) => x.upstream_integration_id === connected && x.candidate_stage)) {
        const list = await call<Candidate[]>(`${urls.api}/org/${orgId}/positions/${p.id}/`, { token });
        const c = list.body.find((x) => x.upstream_application_id);
        if (c) return { position: p, candidate: c };
      }
      return undefined;
    },
    60_000,
  );

  // A graded interview is written back: stage moved to Offer, a note and a result link.
  const configured = await call(`${urls.api}/org/${orgId}/position/${position.id}`, {
    method: "PUT",
    token,
    body: { auto_update_stages: true, min_score: 70, passed_stage: "Offer", rejected_stage: "Rejected", needs_reviewed_stage: "Offer" },
  });
  assert.equal(configured.status, 200, JSON.stringify(configured.body));
  const interviewUrl = `${urls.api}/org/${orgId}/positions/${position.id}/candidates/${candidate.id}/interview/`;
  assert.equal(
    (await call(interviewUrl, { method: "PUT", token, body: { status: "completed", end_time: new Date().toISOString() } })).status,
    200,
  );
  assert.equal(
    (await call(interviewUrl, { method: "PUT", token, body: { status: "graded", score: 85, feedback: "Structured answers." } })).status,
    200,
  );
  const admin = `${urls.sandbox}/sandbox/integrations/${encodeURIComponent(connected)}/applications/${candidate.upstream_application_id}`;
  const written = await eventually("the write-back", async () => {
    const res = await call<SandboxApplication>(admin);
    return res.body.current_stage?.name === "Offer" && res.body.notes.length === 1 ? res.body : undefined;
  });
  const before = await call<{ items: Position[] }>(`${urls.api}/org/${orgId}/position?limit=100`, { token });

  // Stop as an orchestrator would, and start again on the same DATA_DIR.
  assert.equal(await stopServe(), 0, "SIGTERM stops cleanly");
  assert.ok(existsSync(join(dataDir, "sandbox", "state.json")), "the sandbox's state is under DATA_DIR");
  await startServe();
  token = await login();

  // The sandbox still has the connected integration and the written-back application, as it was.
  const integrations = await call<{ integrations: { id: string }[] }>(`${urls.sandbox}/sandbox/integrations`);
  assert.ok(
    integrations.body.integrations.some((i) => i.id === connected),
    "the connected integration survived in the sandbox",
  );
  const after = await call<SandboxApplication>(admin);
  assert.equal(after.status, 200);
  assert.deepEqual(after.body, written);

  // Hirebridge agrees: the integration answers through the proxy, its positions are unchanged, and
  // the upstream's application (read through the proxy) is where Hirebridge wrote it.
  const details = await call<{ data: { id: string; status: string } }>(`${urls.proxy}/integrations/${encodeURIComponent(connected)}`, {
    token,
  });
  assert.equal(details.status, 200, JSON.stringify(details.body));
  assert.equal(details.body.data.id, connected);
  const positions = await call<{ items: Position[] }>(`${urls.api}/org/${orgId}/position?limit=100`, { token });
  assert.deepEqual(positions.body.items, before.body.items);
  const apps = await call<{ data: { results: { id: string; current_stage: { name: string } | null }[] } }>(
    `${urls.proxy}/ats/applications?integration_id=${encodeURIComponent(connected)}&ids=${candidate.upstream_application_id}`,
    { token },
  );
  assert.equal(apps.status, 200, JSON.stringify(apps.body));
  assert.equal(apps.body.data.results[0]?.current_stage?.name, "Offer");
  const syncs = await call<{ write_backs: { candidate_id: string; state: string }[] }>(
    `${urls.proxy}/integrations/${encodeURIComponent(connected)}/syncs`,
    { token },
  );
  assert.equal(syncs.body.write_backs.find((w) => w.candidate_id === candidate.id)?.state, "done");

  // An integration the upstream no longer knows (deleted there, its webhook lost) answers in
  // Hirebridge's own error shape, not the upstream's envelope.
  assert.equal((await call(`${urls.sandbox}/sandbox/config`, { method: "PUT", body: { webhook_url: null } })).status, 200);
  assert.equal((await call(`${urls.sandbox}/sandbox/integrations/${encodeURIComponent(connected)}`, { method: "DELETE" })).status, 200);
  const gone = await call(`${urls.proxy}/ats/jobs?integration_id=${encodeURIComponent(connected)}`, { token });
  assert.equal(gone.status, 404);
  assert.deepEqual(gone.body, { detail: "Integration not found upstream" });
});
