import { createVerifier } from "../../../src/shared/auth/verify-jwt.js";
import type { Database } from "../../../src/shared/db/database.js";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import type { Clock } from "../../../src/client/core/clock.js";
import type { FetchLike } from "../../../src/client/core/transport.js";
import { startTestIdentity, type TestIdentity } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { manualClock } from "../../unit/client/fakes.js";

/** One "now" shared by the token service, the API's verifier and the SDK, moved by the test. */
export type FakeTime = { now(): number; advance(ms: number): void; clock: Clock; sleeps: number[] };

export function fakeTime(start = Date.now()): FakeTime {
  // Retry waits are recorded, not waited: the tests assert on them instead of on wall time.
  const clock = manualClock(start);
  return { now: clock.now, advance: clock.advance, clock, sleeps: clock.sleeps };
}

export type RecordedCall = { method: string; url: URL; form: URLSearchParams | null; status: number };

/** A real fetch that records every call (and the token endpoint's form fields) for assertions. */
export function recordingFetch(): { fetch: FetchLike; calls: RecordedCall[]; grants(type: string): RecordedCall[]; api(): RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const fetchImpl: FetchLike = async (input, init) => {
    const res = await fetch(input, init);
    const form =
      typeof init.body === "string" && /x-www-form-urlencoded/.test(String((init.headers as Record<string, string>)["content-type"]))
        ? new URLSearchParams(init.body)
        : null;
    calls.push({ method: init.method ?? "GET", url: new URL(input), form, status: res.status });
    return res;
  };
  return {
    fetch: fetchImpl,
    calls,
    grants: (type) => calls.filter((c) => c.url.pathname.endsWith("/protocol/openid-connect/token") && c.form?.get("grant_type") === type),
    api: () => calls.filter((c) => c.url.pathname.startsWith("/api/v1/")),
  };
}

export type AuthStack = {
  time: FakeTime;
  identity: TestIdentity;
  apiUrl: string;
  database: Database;
  /** Another recruiting API over the same storage, e.g. one whose verifier demands another audience. */
  startApi(opts: { audience?: string }): Promise<string>;
  close(): Promise<void>;
};

/**
 * The real token service (short lifetimes, the fake clock) and the real recruiting API, whose
 * verifier reads the same clock, on free loopback ports over one in-memory database.
 */
export async function startAuthStack(opts: { accessLifespan?: number; refreshLifespan?: number } = {}): Promise<AuthStack> {
  const time = fakeTime();
  const database = await freshDatabase("pglite");
  const identity = await startTestIdentity(database, {
    overrides: { ACCESS_TOKEN_LIFESPAN: opts.accessLifespan ?? 600, REFRESH_TOKEN_LIFESPAN: opts.refreshLifespan ?? 1200 },
    now: time.now,
  });
  const apps: { close(): Promise<unknown> }[] = [];
  const startApi = async (o: { audience?: string }) => {
    const verify = createVerifier({
      issuer: identity.issuer,
      clockToleranceSeconds: 0,
      currentDate: () => new Date(time.now()),
      ...(o.audience ? { audience: o.audience } : {}),
    });
    const port = await freePort();
    const app = await buildRecruitingApp({ config: testConfig({ API_PORT: port }), database, logger: silentLogger(), verify });
    apps.push(app);
    await app.listen({ host: "127.0.0.1", port });
    return `http://127.0.0.1:${port}/api/v1`;
  };
  return {
    time,
    identity,
    apiUrl: await startApi({}),
    database,
    startApi,
    close: async () => {
      for (const app of apps) await app.close();
      await identity.close();
      await database.dispose();
    },
  };
}
