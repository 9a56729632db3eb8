/**
 * Every benchmark in its smoke mode (`--smoke`: one round of about a second per scenario, each
 * answer checked against the one the scenario expects): a benchmark broken by a change to the
 * services, their limits or their answers fails here instead of rotting until someone measures.
 * The figures are not looked at; the markdown table at the end of the output is.
 *
 * The proxy, recruiting and token (Postgres) benches run in smoke mode under the CPU guard instead,
 * alone after the suite (test/guard/cpu-guard.guard.ts, `npm run test:guard`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runBench } from "../../helpers/bench.js";

/** The benchmarks and the lines their output must carry (a table row per scenario, the memory table). */
const BENCHES: { name: string; args?: string[]; expect: RegExp[] }[] = [
  {
    name: "token",
    expect: [
      /\| refresh grant \(rotating\) \| \d+/,
      /\| no-op route, bearer verified \| \d+/,
      /\| token service \+ no-op API \(pglite\) \| \d+ \| \d+ \|/,
    ],
  },
  {
    name: "cli",
    expect: [
      /\| `hirebridge --help` \| \d+ \| \d+ \| -?\d+ \|/,
      /\| `hirebridge positions --help` \| \d+ \| \d+ \| -?\d+ \|/,
      /\| `hirebridge positons` \(unknown command, exit 2\) \| \d+ \|/,
    ],
  },
  { name: "sandbox", expect: [/\| jobs, first page of 250 \| \d+/, /\| sandbox \(2,000 applications\) \| \d+ \| \d+ \|/] },
  {
    name: "footprint",
    expect: [
      /\| `serve api` \(Postgres\), as `npm start` runs: `[^`]+` \| idle RSS MB \|/,
      /\| \*\*all \d+ process(es)?\*\* \| \*\*\d+\*\* \|/,
      /\| `hirebridge --help` \| \d+ \|/,
    ],
  },
  {
    name: "sync",
    expect: [
      /\| postgres \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \|/,
      /\| pglite \| 100 \| \d+ \| \d+ \| [\d.]+ \| [\d.]+ \|/,
      /\| postgres \| \d+ \| \d+ \| [\d.]+ \| \d+ \| \d+ \| \d+ \| 0 \|/,
    ],
  },
  {
    name: "webhooks-out",
    expect: [
      /\| [\d,]+ events from the outbox to 1 endpoint \| \d+ \| [\d.]+ \|/,
      /\| 10 \| 10\.00 \| [\d.]+ \| [\d.]+ \|/,
      /\| serve token api \(postgres\) \| \d+ \| \d+ \| \d+ \|/,
    ],
  },
  {
    name: "assessments",
    expect: [
      /\| 50 orders \+ 10 duplicates at once, 1 job\(s\): orders\/s \| \d+ \| [\d.]+ \|/,
      /\| candidates, each with its order and an interview link \(none lost, none doubled\) \| 50 \| 50 \|/,
      /\| order webhook → candidate with its interview link \(the 200\) \| 40 \| [\d.]+ \| [\d.]+ \|/,
      /\| inline order → `assessment_url` \| 5 \| [\d.]+ \|/,
      /\| serve proxy \(postgres\): the receivers \| \d+ \| \d+ \|/,
    ],
  },
  {
    name: "scale",
    args: ["--part", "tenants"],
    expect: [
      /\| false \| 1 \| [\d.]+ \| [\d.]+ \| \d+ \| \d+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \/ [\d.]+ \(\d+\) \| \d+ \| [\d.]+ \|/,
      /\| true \| 1 \| [\d.]+ \| [\d.]+ \| \d+ \| \d+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \/ [\d.]+ \(\d+\) \| \d+ \| [\d.]+ \|/,
    ],
  },
  {
    name: "privacy",
    expect: [
      /\| erase all candidates of one organisation \| 200 \| [\d.]+ \| \d+ \| \d+ \| [\d.]+ \| [\d.]+ \|/,
      /\| retention run over 1,050 candidates \(bound \d+\/run\) \| 100 \| [\d.]+ \| \d+ \| \d+ \| [\d.]+ \| [\d.]+ \|/,
    ],
  },
];

for (const bench of BENCHES) {
  test(`bench ${[bench.name, ...(bench.args ?? [])].join(" ")} runs in smoke mode and gets only the answers it expects`, {
    timeout: 300_000,
  }, async () => {
    const { code, stdout, stderr } = await runBench(bench.name, bench.args);
    assert.equal(code, 0, `exit ${code}\n${stdout}\n${stderr}`);
    for (const line of bench.expect) assert.match(stdout, line);
  });
}
