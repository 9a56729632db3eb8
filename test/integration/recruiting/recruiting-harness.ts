import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { recruitingOwnership } from "../../../src/runtime/wiring.js";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import type { RecruitingHooks } from "../../../src/services/recruiting/interviews/interviews.service.js";
import type { Database } from "../../../src/shared/db/database.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { startTestIdentity, tokenRequest, type TestIdentity } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";

type Method = "GET" | "POST" | "PUT" | "DELETE";

/** A logged-in user of one org, calling the recruiting app through `inject`. */
export type Caller = {
  orgId: string;
  token: string;
  call(method: Method, path: string, payload?: unknown): Promise<LightMyRequestResponse>;
};

export type Harness = {
  app: App;
  identity: TestIdentity;
  database: Database;
  /** A new user in a new org (or in `orgId`), with a real access token from the token service. */
  login(orgId?: string): Promise<Caller>;
  /** A real access token of a user who has no org_id attribute (so no org_id claim). */
  tokenWithoutOrg(): Promise<string>;
  /** A real access token whose lifetime has already run out. */
  expiredToken(): Promise<string>;
  /**
   * Records an upstream integration for `orgId` (as the proxy does when the org connects it), so
   * the org's positions may link it; answers its id (`id`, or a new one).
   */
  recordIntegration(orgId: string, id?: string): Promise<string>;
  call(
    method: Method,
    path: string,
    opts?: { token?: string; payload?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
};

export const INTERVIEW_BASE = "https://interview.example.test/i";

/**
 * The recruiting app over the suite's database with the REAL token service (over HTTP) issuing
 * the tokens and its JWKS verifying them. Set up in `before`, torn down in `after`.
 */
export function useRecruiting(getDb: () => Database, hooks: RecruitingHooks = {}): () => Harness {
  let harness: Harness | undefined;
  let clockShiftMs = 0;
  let identity: TestIdentity | undefined;
  let app: App | undefined;
  before(async () => {
    const database = getDb();
    identity = await startTestIdentity(database, { now: () => Date.now() + clockShiftMs });
    const config = testConfig({ INTERVIEW_BASE_URL: INTERVIEW_BASE });
    app = await buildRecruitingApp({
      config,
      database,
      logger: silentLogger(),
      verify: identity.verify,
      hooks,
      ownership: recruitingOwnership(database),
    });
    const inject = app.inject.bind(app);
    const id = identity;
    const call: Harness["call"] = (method, path, opts = {}) =>
      inject({
        method,
        url: `/api/v1${path}`,
        headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
        ...(opts.payload === undefined ? {} : { payload: opts.payload as never }),
      });
    harness = {
      app,
      identity: id,
      database,
      async login(orgId) {
        const session = await id.login(orgId ? { orgId } : {});
        return {
          orgId: session.orgId,
          token: session.accessToken,
          call: (method, path, payload) => call(method, path, { token: session.accessToken, payload }),
        };
      },
      async tokenWithoutOrg() {
        const origin = new URL(id.authUrl).origin;
        const admin = await tokenRequest(`${origin}/realms/master`, {
          grant_type: "password",
          client_id: "admin-cli",
          username: "admin",
          password: testConfig().ADMIN_PASSWORD,
        });
        const adminToken = (admin.body as { access_token: string }).access_token;
        const username = `no-org-${randomBytes(5).toString("hex")}`;
        const password = randomBytes(12).toString("base64url");
        const created = await fetch(`${origin}/admin/realms/hirebridge/users`, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ username, enabled: true, credentials: [{ type: "password", value: password, temporary: false }] }),
        });
        assert.equal(created.status, 201);
        const tokens = await tokenRequest(id.authUrl, { grant_type: "password", client_id: "hirebridge", username, password });
        assert.equal(tokens.status, 200);
        return (tokens.body as { access_token: string }).access_token;
      },
      async expiredToken() {
        clockShiftMs = -2 * 3600_000; // issued two hours ago: past its 1800 s life and the 30 s skew
        try {
          return (await id.login()).accessToken;
        } finally {
          clockShiftMs = 0;
        }
      },
      async recordIntegration(orgId, id = `greenhouse:${randomBytes(6).toString("hex")}`) {
        await database.query(
          "insert into integrations (id, org_id, tool, category, status) values ($1, $2, 'greenhouse', 'ATS', 'ACTIVE')",
          [id, orgId],
        );
        return id;
      },
      call,
    };
  });
  after(async () => {
    await app?.close();
    await identity?.close();
  });
  return () => {
    if (!harness) throw new Error("harness not started yet");
    return harness;
  };
}

/** The whole error body: `{"detail": <detail>}` with the status. */
export function expectDetail(res: LightMyRequestResponse, status: number, detail?: string | RegExp): void {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json() as { detail: unknown };
  assert.deepEqual(Object.keys(body), ["detail"]);
  assert.equal(typeof body.detail, "string");
  if (typeof detail === "string") assert.equal(body.detail, detail);
  else if (detail) assert.match(body.detail as string, detail);
}

/** A 422 whose detail lists exactly these `[loc, type]` pairs (in any order). */
export function expect422(res: LightMyRequestResponse, expected: [string, string][]): void {
  assert.equal(res.statusCode, 422, res.body);
  const detail = (res.json() as { detail: { loc: (string | number)[]; msg: string; type: string }[] }).detail;
  for (const d of detail) assert.equal(typeof d.msg, "string");
  assert.deepEqual(detail.map((d) => [d.loc.join("."), d.type]).sort(), [...expected].sort());
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const unknownId = () => crypto.randomUUID();

/** A valid candidate creation body with a unique email. */
export const newCandidate = (
  over: Record<string, unknown> = {},
): Record<string, unknown> & { name: string; email: string; phone: string; language: string } => ({
  name: "Ada Lovelace",
  email: `ada.${randomBytes(4).toString("hex")}@example.test`,
  phone: "+44 20 7946 0000",
  language: "en",
  ...over,
});
