import { randomBytes, randomUUID } from "node:crypto";
import type { TokenResponse } from "../../src/contracts/token.js";
import { createVerifier, type Verify } from "../../src/shared/auth/verify-jwt.js";
import { serviceUrls } from "../../src/shared/config.js";
import type { Database } from "../../src/shared/db/database.js";
import { buildTokenApp } from "../../src/services/token/app.js";
import { silentLogger, testConfig } from "./config.js";
import { freePort } from "./ports.js";

export type TestLogin = { accessToken: string; refreshToken: string; orgId: string; userId: string; username: string; password: string };
export type TestIdentity = {
  issuer: string; // http://127.0.0.1:<port>/realms/hirebridge
  authUrl: string; // same as issuer
  verify: Verify; // createVerifier({ issuer, audience }) as the APIs build it (real JWKS over HTTP)
  /** Creates a user (in a NEW random org unless orgId is given) through the admin REST API, then logs in with the password grant. */
  login(opts?: { orgId?: string; username?: string }): Promise<TestLogin>;
  close(): Promise<void>;
};

/**
 * argon2id memory for test identities: far below production (PASSWORD_HASH_MEMORY_KIB, 19456, with
 * 2 passes) so suites that log many users in stay fast; the hashing code path is the same.
 * Override to test the cost.
 */
const TEST_HASH_MEMORY_KIB = 1024;

/** POSTs a form to the token endpoint of `authUrl` and returns status and parsed JSON. */
export async function tokenRequest(authUrl: string, form: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${authUrl}/protocol/openid-connect/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: await res.json() };
}

async function expectTokens(authUrl: string, form: Record<string, string>): Promise<TokenResponse> {
  const { status, body } = await tokenRequest(authUrl, form);
  if (status !== 200) throw new Error(`token request failed: ${status} ${JSON.stringify(body)}`);
  return body as TokenResponse;
}

/** Starts the real token service on a free 127.0.0.1 port over `database` (already migrated). */
export async function startTestIdentity(
  database: Database,
  opts: { overrides?: Record<string, string | number>; now?: () => number } = {},
): Promise<TestIdentity> {
  const port = await freePort();
  const config = testConfig({
    PASSWORD_HASH_MEMORY_KIB: TEST_HASH_MEMORY_KIB,
    PASSWORD_HASH_PASSES: 1,
    ...opts.overrides,
    AUTH_PORT: port,
    HOST: "127.0.0.1",
  });
  const urls = serviceUrls(config);
  const { app } = await buildTokenApp({ config, logger: silentLogger(), database, urls, ...(opts.now ? { now: opts.now } : {}) });
  await app.listen({ host: "127.0.0.1", port });
  const adminBase = `${urls.authOrigin}/admin/realms/${config.AUTH_REALM}`;

  let adminToken: string | undefined;
  const adminLogin = async () =>
    (adminToken = (
      await expectTokens(`${urls.authOrigin}/realms/master`, {
        grant_type: "password",
        client_id: "admin-cli",
        username: "admin",
        password: config.ADMIN_PASSWORD,
      })
    ).access_token);

  /** Admin API call; logs the admin in (again) when there is no token or it stopped working. */
  async function admin(path: string, init: { method: string; body?: unknown }): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const token = adminToken ?? (await adminLogin());
      const res = await fetch(`${adminBase}${path}`, {
        method: init.method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      if (res.status !== 401 || attempt > 0) return res;
      adminToken = undefined;
    }
  }

  return {
    issuer: urls.issuer,
    authUrl: urls.authUrl,
    verify: createVerifier({ issuer: urls.authUrl, audience: config.AUTH_AUDIENCE }),
    async login(o = {}) {
      const orgId = o.orgId ?? randomUUID();
      const username = (o.username ?? `user-${randomBytes(6).toString("hex")}`).toLowerCase();
      const password = randomBytes(12).toString("base64url");
      const created = await admin("/users", {
        method: "POST",
        body: {
          username,
          email: `${username}@example.test`,
          enabled: true,
          attributes: { org_id: [orgId] },
          credentials: [{ type: "password", value: password, temporary: false }],
        },
      });
      if (created.status !== 201) throw new Error(`creating user ${username} failed: ${created.status} ${await created.text()}`);
      const userId = created.headers.get("location")?.split("/").at(-1);
      if (!userId) throw new Error("user created without a Location header");
      const tokens = await expectTokens(urls.authUrl, {
        grant_type: "password",
        client_id: config.AUTH_CLIENT_ID,
        username,
        password,
      });
      return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token, orgId, userId, username, password };
    },
    close: () => app.close(),
  };
}
