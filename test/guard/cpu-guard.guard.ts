/**
 * The CI guard (issue 32, bench/guard.ts): the proxy, recruiting and token (Postgres) benches in
 * smoke mode with `--guard --rounds 3`, each hop's CPU µs per request compared with its floor's
 * measured in the same run (bench/floors.ts); a bench exits non-zero past a row's bound. The last
 * test shows the guard failing on a deliberately slowed hop (BENCH_SLOW_HOP_US, bench/slow-hop.mjs).
 *
 * Why a file of its own, run by `npm run test:guard` after the suite and one bench at a time: CPU
 * per request is steady on a quiet machine (run medians within ±10% here) but moves with a
 * neighbour's load (a hop's ratio to its floor rose from ~2.4 to ~4 while the suite ran beside
 * it), and bounds wide enough for that would let the proxy's 0.83x → 0.46x fall of issue 32 through.
 * Run alone, the bounds can be about 1.6x of main's ratios, and a hop whose CPU per request rises
 * 1.8x (that fall) fails.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runBench } from "../helpers/bench.js";

/** The guard's flags: three rounds, the guard reads the median of the per-round ratios. */
const GUARD_ARGS = ["--guard", "--rounds", "3"];
const GUARD_TABLE = /\| row \| floor \| ours CPU µs\/req \| floor CPU µs\/req \|/;
/** A guarded row within its bound. */
const GUARD_OK = /\| [^|]+ \| [^|]+ \| \d+ \| \d+ \| [\d.]+ \| [^|]+ \| [\d.]+ \| ok \|/;

const GUARDED: { name: string; args: string[]; expect: RegExp[] }[] = [
  {
    name: "token",
    args: ["--db=postgres", ...GUARD_ARGS],
    expect: [GUARD_TABLE, GUARD_OK, /\| password grant \| \d+/, /\| token service \+ no-op API \(postgres\) \| \d+ \| \d+ \|/],
  },
  {
    name: "recruiting",
    args: [...GUARD_ARGS],
    expect: [
      GUARD_TABLE,
      GUARD_OK,
      /\| postgres \| GET 100 candidates \| \d+/,
      /\| pglite \| POST candidate \(create\) \| \d+/,
      /\| serve token api \(postgres\) \| \d+ \| \d+ \|/,
    ],
  },
  {
    name: "proxy",
    args: ["--load", "autocannon", ...GUARD_ARGS],
    expect: [GUARD_TABLE, GUARD_OK, /\| Hirebridge proxy \(JWT\) \| \d+/, /\| serve token proxy \(postgres\) \| \d+ \| \d+ \|/],
  },
];

for (const bench of GUARDED) {
  test(`bench ${[bench.name, ...bench.args].join(" ")}: every hop within its CPU bound, every answer expected`, {
    timeout: 300_000,
  }, async () => {
    const { code, stdout, stderr } = await runBench(bench.name, bench.args);
    assert.equal(code, 0, `exit ${code}\n${stdout}\n${stderr}`);
    for (const line of bench.expect) assert.match(stdout, line);
  });
}

test("the CPU guard fails on a deliberately slowed hop: the proxy with a CPU spin before each request", { timeout: 300_000 }, async () => {
  // 400 µs of spin before each request about doubles the proxy's own CPU per request in this smoke
  // run on a quiet machine (~420–450 µs with its 1-second rounds; bench/README.md Round 10), a
  // little more than the proxy's fall in issue 32 (1.8x).
  const { code, stdout, stderr } = await runBench("proxy", ["--load", "autocannon", ...GUARD_ARGS], { BENCH_SLOW_HOP_US: "400" });
  assert.notEqual(code, 0, `the slowed proxy passed the guard\n${stdout}`);
  assert.match(stdout, GUARD_TABLE);
  assert.match(stderr, /CPU guard failed: proxy \(shared\) \d+ µs\/req = [\d.]+x its floor's/);
});
