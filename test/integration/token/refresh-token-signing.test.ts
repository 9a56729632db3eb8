import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { Writable } from "node:stream";
import { decodeProtectedHeader, jwtVerify } from "jose";
import pino from "pino";
import { describeEachDatabase } from "../../helpers/db.js";
import { buildHarness, claims, kidOf, testClock, type Harness } from "./harness.js";

const grantError = (description: string) => ({ error: "invalid_grant", error_description: description });
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** An HS512 JWS made here, independently of the service's code: tests forge with it. */
function hs512Jws(header: Record<string, unknown>, payload: Record<string, unknown>, secret: Buffer): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac("sha512", secret).update(input).digest("base64url")}`;
}

describeEachDatabase("refresh tokens: HS512 under the refresh token key", (getDb) => {
  let h: Harness;
  before(async () => {
    h = await buildHarness(getDb());
  });
  after(() => h.app.close());

  /** The stored secret of an HMAC key (what another instance reads from the same table). */
  const secretOf = async (kid: string): Promise<Buffer> => {
    const [row] = await getDb().query<{ secret_jwk: { k: string } }>("select secret_jwk from token_refresh_token_keys where kid = $1", [
      kid,
    ]);
    assert.ok(row, `no refresh token key ${kid}`);
    return Buffer.from(row.secret_jwk.k, "base64url");
  };
  const jwksKids = async () =>
    ((await h.app.inject({ url: "/realms/hirebridge/protocol/openid-connect/certs" })).json().keys as { kid: string }[]).map((k) => k.kid);

  test("the refresh token is an HS512 JWT with Keycloak's claims; its key is not published; the others stay RS256", async () => {
    const user = await h.newUser();
    const login = await h.password(user.username, user.password, { scope: "openid" });
    assert.equal(login.status, 200);
    const tokens = login.body as { refresh_token: string; access_token: string; id_token: string; session_state: string };
    const header = decodeProtectedHeader(tokens.refresh_token);
    assert.deepEqual(Object.keys(header), ["alg", "typ", "kid"]);
    assert.equal(header.alg, "HS512");
    const secret = await secretOf(header.kid!);
    assert.equal(secret.length, 64, "512 bits, the hash's size (RFC 7518 §3.2)");
    // jose, given the stored secret, verifies it: a plain RFC 7515 JWS.
    const { payload } = await jwtVerify(tokens.refresh_token, secret, { algorithms: ["HS512"], currentDate: new Date(h.clock.now()) });
    const session = await h.context.sessions.findById(tokens.session_state);
    assert.deepEqual(
      { typ: payload["typ"], aud: payload.aud, azp: payload["azp"], sid: payload["sid"], sub: payload.sub, jti: payload.jti },
      {
        typ: "Refresh",
        aud: h.context.realms.app.issuer,
        azp: "hirebridge",
        sid: tokens.session_state,
        sub: user.id,
        jti: session?.refreshJti,
      },
    );
    assert.ok(!(await jwksKids()).includes(header.kid!));
    for (const rs256 of [tokens.access_token, tokens.id_token]) {
      assert.equal(decodeProtectedHeader(rs256).alg, "RS256");
      assert.ok((await jwksKids()).includes(kidOf(rs256)!));
    }
    const refreshed = await h.refresh(tokens.refresh_token);
    assert.equal(refreshed.status, 200);
    assert.equal(decodeProtectedHeader(refreshed.body.id_token).alg, "RS256", "the ID token of a refresh is RS256 too");
  });

  test("a tampered refresh token is refused and does not touch the session", async () => {
    const { tokens } = await h.login();
    const [head, payload, sig] = tokens.refresh_token.split(".") as [string, string, string];
    const header = decodeProtectedHeader(tokens.refresh_token);
    const rsaKid = (await jwksKids())[0]!;
    const tampered = [
      `${head}.${b64({ ...claims(tokens.refresh_token), sub: crypto.randomUUID() })}.${sig}`, // payload
      `${head}.${payload}.${Buffer.from(sig, "base64url").reverse().toString("base64url")}`, // signature
      `${head}.${payload}.${sig.slice(0, 43)}`, // truncated signature
      `${head}.${payload}.`, // none
      `${b64({ ...header, alg: "none" })}.${payload}.`,
      `${b64({ ...header, alg: "HS256" })}.${payload}.${sig}`,
      `${b64({ ...header, alg: "RS256" })}.${payload}.${sig}`,
      `${b64({ ...header, kid: rsaKid })}.${payload}.${sig}`,
      `${b64({ ...header, kid: undefined })}.${payload}.${sig}`,
      `${head}.${payload}.${sig}=`, // not strict base64url
      `${b64([header])}.${payload}.${sig}`,
    ];
    for (const bad of tampered) {
      const res = await h.refresh(bad);
      assert.deepEqual([res.status, res.body], [400, grantError("Invalid refresh token")], bad.slice(0, 60));
    }
    assert.equal((await h.refresh(tokens.refresh_token)).status, 200, "the real token still works: nothing was spent");
  });

  test("a refresh token signed with another key is refused, whatever kid it names", async () => {
    const { tokens } = await h.login();
    const header = decodeProtectedHeader(tokens.refresh_token);
    const payload = claims(tokens.refresh_token);
    const otherKey = randomBytes(64);
    for (const kid of [header.kid, crypto.randomUUID()]) {
      const res = await h.refresh(hs512Jws({ ...header, kid }, payload, otherKey));
      assert.deepEqual([res.status, res.body], [400, grantError("Invalid refresh token")], `kid ${kid}`);
    }
    // Control: the same bytes under the real secret are accepted (so the refusals above are the key's doing).
    const res = await h.refresh(hs512Jws(header, payload, await secretOf(header.kid!)));
    assert.equal(res.status, 200);
  });

  test("an access token is no refresh token, and a refresh token is no access token", async () => {
    const { tokens } = await h.login();
    // An access token, even one signed with the refresh token key (only the typ differs), is refused.
    const accessShaped = await h.context.refreshKeys.sign({ ...claims(tokens.refresh_token), typ: "Bearer" });
    for (const token of [tokens.access_token, accessShaped]) {
      assert.deepEqual((await h.refresh(token)).body, grantError("Invalid refresh token"));
    }
    const bearer = { authorization: `Bearer ${tokens.refresh_token}` };
    const userinfo = await h.app.inject({ url: "/realms/hirebridge/protocol/openid-connect/userinfo", headers: bearer });
    assert.equal(userinfo.statusCode, 401);
    const admin = await h.app.inject({ url: "/admin/realms/hirebridge/users", headers: bearer });
    assert.equal(admin.statusCode, 401);
    assert.equal((await h.refresh(tokens.refresh_token)).status, 200);
  });

  test("an RS256 refresh token of the previous release still refreshes and logs out until it expires", async () => {
    const clock = testClock();
    const timed = await buildHarness(getDb(), { clock });
    try {
      // The previous release signed refresh tokens like access tokens: the published RSA key.
      const legacy = async () => {
        const { tokens } = await timed.login();
        return timed.context.keys.sign(claims(tokens.refresh_token));
      };
      const old = await legacy();
      assert.equal(decodeProtectedHeader(old).alg, "RS256");
      const refreshed = await timed.refresh(old);
      assert.equal(refreshed.status, 200);
      assert.equal(decodeProtectedHeader(refreshed.body.refresh_token).alg, "HS512", "its successor is HS512");
      assert.deepEqual(
        (await timed.refresh(old)).body,
        grantError("Maximum allowed refresh token reuse exceeded"),
        "reuse detection holds",
      );

      const out = await timed.app.inject({
        method: "POST",
        url: "/realms/hirebridge/protocol/openid-connect/logout",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ client_id: "hirebridge", refresh_token: await legacy() }).toString(),
      });
      assert.equal(out.statusCode, 204);

      const expiring = await legacy();
      clock.advance(1801);
      assert.deepEqual((await timed.refresh(expiring)).body, grantError("Token is not active"));
    } finally {
      await timed.app.close();
    }
  });

  test("the key is stored once for every instance, and neither rotation nor refreshing logs the secret", async () => {
    const logs: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        cb();
      },
    });
    const logged = await buildHarness(getDb(), { clock: h.clock, logger: pino({ level: "trace" }, sink) });
    try {
      const { tokens } = await h.login();
      const refreshed = await logged.refresh(tokens.refresh_token);
      assert.equal(refreshed.status, 200, "a second instance over the same database accepts the first one's token");
      assert.equal((await h.refresh(refreshed.body.refresh_token)).status, 200, "and the other way round");
      const rotated = await logged.admin("POST", "/hirebridge/keys/rotate");
      assert.equal(rotated.status, 200);
      const { kid, retired } = rotated.body.refresh_token_key as { kid: string; retired: string[] };
      assert.ok(logs.join("").includes(kid), "the rotation is logged, by kid");
      for (const k of [kid, ...retired]) {
        const secret = await secretOf(k);
        for (const spelling of [secret.toString("base64url"), secret.toString("base64"), secret.toString("hex")]) {
          assert.ok(!logs.join("").includes(spelling), "no HMAC secret in the logs");
          assert.ok(!JSON.stringify(rotated.body).includes(spelling), "nor in the answer");
        }
      }
    } finally {
      await logged.app.close();
    }
  });
});
