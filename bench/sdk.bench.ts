/**
 * `npm run bench -- sdk [--rounds 5] [--requests 2000] [--concurrency 10] [--cli-runs 5]`
 *
 * What the client SDK and the CLI cost on top of the API they call. The token service and the
 * recruiting API run in a child process (`hirebridge serve token api`, PGlite in a temp dir) so the
 * load generator does not share their event loop. Every round runs each scenario once, in the same
 * order; the table shows medians over rounds:
 *   - baseline: `GET /org/{org}/position/{id}` with plain `fetch` and a fixed bearer token (both
 *     paths are warmed up first, and their order alternates between rounds);
 *   - the same call as `hb.positions.get(id)` (token from the SDK's cache, typed errors, retry
 *     policy, deadline, abort wiring);
 *   - a token refresh shared by `concurrency` calls issued at once right after the token was made
 *     due (the single-flight path), against the same calls with a fresh token;
 *   - the CLI: `hirebridge --json positions show <id>` as a process, against `node -e 0`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hirebridge } from "../src/client/index.js";
import { freePort, machine, median, option, processMs, serveChild, waitHealthy } from "./lib.js";

/** Throughput, latency, and the CPU the calling process spent per call (the client side only: the servers run in a child). */
type Stat = { rps: number; p50: number; p99: number; cpuUs: number };

async function load(n: number, concurrency: number, call: () => Promise<unknown>): Promise<Stat> {
  const latencies: number[] = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        const t = performance.now();
        await call();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!;
  return { rps: n / seconds, p50: pct(0.5), p99: pct(0.99), cpuUs: (used.user + used.system) / n };
}

export async function main(args: string[]): Promise<void> {
  const rounds = Number(option(args, "rounds", "5"));
  const requests = Number(option(args, "requests", "2000"));
  const concurrency = Number(option(args, "concurrency", "10"));
  const cliRuns = Number(option(args, "cli-runs", "5"));
  const dataDir = await mkdtemp(join(tmpdir(), "hirebridge-sdk-bench-"));
  const [authPort, apiPort] = [await freePort(), await freePort()];
  const server = serveChild(["token", "api"], {
    AUTH_PORT: String(authPort),
    API_PORT: String(apiPort),
    DATA_DIR: dataDir,
    // One benchmark caller is far above any per-caller limit; the limits are not what is measured.
    RATE_LIMIT_PER_MINUTE: "0",
    RATE_LIMIT_ORG_PER_MINUTE: "0",
    TOKEN_RATE_LIMIT_PER_MINUTE: "0",
  });
  try {
    const authUrl = `http://127.0.0.1:${authPort}/realms/hirebridge`;
    const apiUrl = `http://127.0.0.1:${apiPort}/api/v1`;
    await waitHealthy(`http://127.0.0.1:${authPort}/healthz`, server.child);
    await waitHealthy(`http://127.0.0.1:${apiPort}/healthz`, server.child);

    const credentials = { username: "demo", password: "demo-password" };
    const hb = new Hirebridge({ authUrl, apiUrl, credentials });
    const orgId = await hb.orgId();
    const position = await hb.positions.create({ name: "Benchmark position" });
    const token = await hb.auth.getAccessToken();
    const url = `${apiUrl}/org/${orgId}/position/${position.id}`;
    const raw = async () => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: "application/json" } });
      if (res.status !== 200) throw new Error(`raw fetch: ${res.status}`);
      await res.json();
    };
    const sdk = new Hirebridge({ authUrl, apiUrl, credentials, orgId });
    await sdk.positions.get(position.id);

    const cliEnv = {
      PATH: process.env["PATH"] ?? "",
      HOME: dataDir,
      HIREBRIDGE_AUTH_URL: authUrl,
      HIREBRIDGE_API_URL: apiUrl,
      HIREBRIDGE_USERNAME: "demo",
      HIREBRIDGE_PASSWORD: "demo-password",
    };
    const results: Record<string, Stat[]> = { raw: [], sdk: [] };
    const fresh: number[] = [];
    const refresh: number[] = [];
    const cli: number[] = [];
    const node: number[] = [];
    const viaSdk = () => sdk.positions.get(position.id);
    // Warm both paths up (JIT, connection pools) before anything is measured.
    await load(requests, concurrency, raw);
    await load(requests, concurrency, viaSdk);
    for (let r = 0; r < rounds; r++) {
      // Alternate the order so neither path always runs on a server the other just warmed.
      const order = r % 2 === 0 ? (["raw", "sdk"] as const) : (["sdk", "raw"] as const);
      for (const k of order) results[k]!.push(await load(requests, concurrency, k === "raw" ? raw : viaSdk));
      // One burst of `concurrency` calls with a valid token, then the same burst with the token made due.
      const burst = async () => {
        const t = performance.now();
        await Promise.all(Array.from({ length: concurrency }, () => sdk.positions.get(position.id)));
        return performance.now() - t;
      };
      fresh.push(await burst());
      sdk.auth.invalidate(await sdk.auth.getAccessToken());
      refresh.push(await burst());
      for (let i = 0; i < cliRuns; i++) {
        node.push(await processMs(["-e", "0"], cliEnv));
        cli.push(await processMs(["bin/hirebridge.js", "--json", "positions", "show", position.id], cliEnv));
      }
    }
    const m = (k: string, f: keyof Stat) => median(results[k]!.map((s) => s[f]));
    const fmt = (x: number, d = 2) => x.toFixed(d);
    const lines = [
      `Machine: ${machine()}. ${rounds} rounds, ${requests} requests at concurrency ${concurrency} per scenario, medians over rounds.`,
      "",
      "| scenario | req/s | p50 ms | p99 ms | client CPU µs/call |",
      "|---|---|---|---|---|",
      `| plain fetch, fixed bearer token (baseline) | ${fmt(m("raw", "rps"), 0)} | ${fmt(m("raw", "p50"))} | ${fmt(m("raw", "p99"))} | ${fmt(m("raw", "cpuUs"), 0)} |`,
      `| \`hb.positions.get(id)\` | ${fmt(m("sdk", "rps"), 0)} | ${fmt(m("sdk", "p50"))} | ${fmt(m("sdk", "p99"))} | ${fmt(m("sdk", "cpuUs"), 0)} |`,
      "",
      `SDK cost per call: ${fmt(m("sdk", "cpuUs") - m("raw", "cpuUs"), 0)} µs of client CPU; ${fmt((m("sdk", "p50") - m("raw", "p50")) * 1000, 0)} µs at p50; throughput ${fmt((m("sdk", "rps") / m("raw", "rps")) * 100, 1)} % of plain fetch.`,
      "",
      "| burst of concurrent calls | wall ms (median) |",
      "|---|---|",
      `| ${concurrency} calls, token valid | ${fmt(median(fresh))} |`,
      `| ${concurrency} calls, token due: one shared refresh, then the calls | ${fmt(median(refresh))} |`,
      "",
      "| process | ms (median) |",
      "|---|---|",
      `| \`node -e 0\` (baseline) | ${fmt(median(node), 0)} |`,
      `| \`hirebridge --json positions show <id>\` (login from the environment, one API call) | ${fmt(median(cli), 0)} |`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
