import { randomBytes, randomUUID } from "node:crypto";
import { decodeJwt, decodeProtectedHeader, type JWTPayload } from "jose";
import type { Logger } from "pino";
import type { TokenResponse } from "../../../src/contracts/token.js";
import { buildTokenApp, type TokenApp } from "../../../src/services/token/app.js";
import type { Config } from "../../../src/runtime/config.js";
import type { Database } from "../../../src/shared/db/database.js";
import { silentLogger, testConfig } from "../../helpers/config.js";

/** A clock the token service reads; tests move it to expire tokens, sessions and locks. */
export type Clock = { now: () => number; advance(seconds: number): void };
export function testClock(start = Date.now()): Clock {
  let t = start;
  return { now: () => t, advance: (s) => (t += s * 1000) };
}

// biome-ignore lint/suspicious/noExplicitAny: the suites read the token service's JSON answers field by field
export type Res = { status: number; body: any; headers: Record<string, unknown> };
export type NewUser = { id: string; username: string; password: string; orgId: string };

export type Harness = TokenApp & {
  config: Config;
  clock: Clock;
  /** POST form to {realm}/protocol/openid-connect/token (default the app realm). */
  token(form: Record<string, string | string[]>, opts?: { realm?: string; headers?: Record<string, string> }): Promise<Res>;
  password(username: string, password: string, extra?: Record<string, string>): Promise<Res>;
  refresh(refreshToken: string, clientId?: string): Promise<Res>;
  adminToken(): Promise<string>;
  admin(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown, token?: string): Promise<Res>;
  /** Creates an enabled user with a password in a new org (unless given) through the admin API. */
  newUser(rep?: Record<string, unknown>): Promise<NewUser>;
  /** Password grant for a fresh user; fails the test unless it answers 200. */
  login(rep?: Record<string, unknown>): Promise<{ user: NewUser; tokens: TokenResponse }>;
};

const toRes = (r: { statusCode: number; body: string; headers: Record<string, unknown> }): Res => ({
  status: r.statusCode,
  body: r.body ? JSON.parse(r.body) : undefined,
  headers: r.headers,
});

export const claims = (jwt: string): JWTPayload & Record<string, unknown> => decodeJwt(jwt);
export const kidOf = (jwt: string): string | undefined => decodeProtectedHeader(jwt).kid;

export async function buildHarness(
  database: Database,
  opts: { overrides?: Record<string, string | number>; clock?: Clock; logger?: Logger } = {},
): Promise<Harness> {
  const config = testConfig({ PASSWORD_HASH_MEMORY_KIB: 1024, PASSWORD_HASH_PASSES: 1, ...opts.overrides });
  const clock = opts.clock ?? testClock();
  const built = await buildTokenApp({ config, logger: opts.logger ?? silentLogger(), database, now: clock.now });
  const { app } = built;
  const realmBase = (realm = config.AUTH_REALM) => `/realms/${realm}/protocol/openid-connect`;

  const h: Harness = {
    ...built,
    config,
    clock,
    async token(form, o = {}) {
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries(form)) for (const x of [v].flat()) body.append(k, x);
      return toRes(
        await app.inject({
          method: "POST",
          url: `${realmBase(o.realm)}/token`,
          headers: { "content-type": "application/x-www-form-urlencoded", ...o.headers },
          payload: body.toString(),
        }),
      );
    },
    password: (username, password, extra = {}) =>
      h.token({ grant_type: "password", client_id: config.AUTH_CLIENT_ID, username, password, ...extra }),
    refresh: (refreshToken, clientId = config.AUTH_CLIENT_ID) =>
      h.token({ grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken }),
    async adminToken() {
      const res = await h.token(
        { grant_type: "password", client_id: "admin-cli", username: "admin", password: config.ADMIN_PASSWORD },
        { realm: "master" },
      );
      if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.access_token as string;
    },
    async admin(method, path, body, token) {
      const auth = token ?? (await h.adminToken());
      return toRes(
        await app.inject({
          method,
          url: `/admin/realms/${path.startsWith("/") ? config.AUTH_REALM + path : path}`,
          headers: { authorization: `Bearer ${auth}` },
          ...(body === undefined ? {} : { payload: body as object }),
        }),
      );
    },
    async newUser(rep = {}) {
      const username = `u-${randomBytes(5).toString("hex")}`;
      const password = `pw-${randomBytes(8).toString("hex")}`;
      const orgId = randomUUID();
      const res = await h.admin("POST", "/users", {
        username,
        email: `${username}@example.test`,
        enabled: true,
        attributes: { org_id: [orgId] },
        credentials: [{ type: "password", value: password, temporary: false }],
        ...rep,
      });
      if (res.status !== 201) throw new Error(`create user failed: ${res.status} ${JSON.stringify(res.body)}`);
      const id = String(res.headers["location"]).split("/").at(-1)!;
      return { id, username: String(rep["username"] ?? username).toLowerCase(), password, orgId };
    },
    async login(rep) {
      const user = await h.newUser(rep);
      const res = await h.password(user.username, user.password);
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { user, tokens: res.body as TokenResponse };
    },
  };
  return h;
}
