import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { startTestStack, type TestStack } from "../../helpers/stack.js";

/**
 * A sweep generated from the OpenAPI documents of the proxy, the recruiting API and the token
 * service: every route and method, each path parameter, query parameter and top-level body field in
 * turn given an odd value (NUL, bytes that are not UTF-8, a lone surrogate, 5,000 characters, a
 * path traversal, emoji), over real sockets. Nothing may answer 5xx or show a stack trace; input
 * storage cannot hold (NUL, lone surrogates, bytes that are not UTF-8) must answer 4xx; odd values
 * storage can hold (emoji, a traversal as text) may be accepted where the contract allows them.
 */
type Odd = { name: string; url: string; json?: string; raw?: Buffer; unstorable: boolean };
const ODD: Odd[] = [
  { name: "NUL", url: "a%00b", json: "a\u0000b", unstorable: true },
  { name: "lone surrogate", url: "%ED%A0%80", json: "x\ud800y", unstorable: true },
  { name: "invalid UTF-8", url: "%FF%FE", raw: Buffer.from([0xff, 0xfe, 0xc3, 0x28]), unstorable: true },
  { name: "5,000 characters", url: "x".repeat(5000), json: "x".repeat(5000), unstorable: false },
  { name: "traversal", url: encodeURIComponent("../../../../etc/passwd"), json: "../../../../etc/passwd", unstorable: false },
  { name: "emoji", url: encodeURIComponent("😀🚀👩🏽‍💻"), json: "😀🚀👩🏽‍💻", unstorable: false },
];

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  format?: string;
};
type Parameter = { name: string; in: "path" | "query" | "header"; schema?: Schema };
type Operation = { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> }; security?: unknown[] };
type OpenApi = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

type Service = { name: string; origin: string; doc: OpenApi; token: string; pathValue: (name: string, schema?: Schema) => string };
type Finding = { service: string; request: string; odd: string; status: number; body: string };

const STACK_TRACE = /\bat [^\s]+ \(?[^\s]*:\d+:\d+\)?|node_modules|\.ts:\d+/;

describeEachDatabase("OpenAPI sweep with odd values", (getDb) => {
  let stack: TestStack;
  const services: Service[] = [];
  before(async () => {
    stack = await startTestStack(getDb(), { sandbox: { applications: 5, webhookUrl: undefined as never } });
    const me = await stack.login(stack.sandbox.demoOrgId);
    const tokenOrigin = new URL(stack.identity.issuer).origin;
    const admin = await fetch(`${tokenOrigin}/realms/master/protocol/openid-connect/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "password", client_id: "admin-cli", username: "admin", password: "admin-password" }),
    });
    const adminToken = ((await admin.json()) as { access_token: string }).access_token;
    const known: Record<string, string> = {
      org_id: me.orgId,
      integration_id: stack.sandbox.demoIntegrationId,
      category: "ats",
      realm: "hirebridge",
    };
    const pathValue = (name: string, schema?: Schema) =>
      known[name] ?? (schema?.format === "uuid" || /(^|_)id$/.test(name) ? randomUUID() : "x");
    const doc = async (url: string) => (await (await fetch(url)).json()) as OpenApi;
    const proxyOrigin = new URL(stack.proxyUrl).origin;
    const apiOrigin = new URL(stack.apiUrl).origin;
    services.push(
      { name: "proxy", origin: proxyOrigin, doc: await doc(`${stack.proxyUrl}/openapi.json`), token: me.accessToken, pathValue },
      { name: "recruiting", origin: apiOrigin, doc: await doc(`${stack.apiUrl}/openapi.json`), token: me.accessToken, pathValue },
      { name: "token", origin: tokenOrigin, doc: await doc(`${tokenOrigin}/openapi.json`), token: adminToken, pathValue },
    );
  });
  after(() => stack.close());

  test("every route and method answers odd input with a 4xx (never a 5xx or a stack trace)", { timeout: 110_000 }, async () => {
    const findings: Finding[] = [];
    const counts: Record<string, number> = {};
    let routes = 0;
    let requests = 0;
    for (const svc of services) {
      const resolve = (s: Schema | undefined): Schema | undefined =>
        s?.$ref ? svc.doc.components?.schemas?.[s.$ref.split("/").pop() ?? ""] : s;
      for (const [path, methods] of Object.entries(svc.doc.paths)) {
        for (const [method, op] of Object.entries(methods)) {
          if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
          routes++;
          const params = op.parameters ?? [];
          const pathParams = params.filter((p) => p.in === "path");
          const queryParams = params.filter((p) => p.in === "query");
          const contentType = Object.keys(op.requestBody?.content ?? {})[0];
          const bodySchema = resolve(contentType ? op.requestBody!.content[contentType]!.schema : undefined);
          const bodyFields = Object.keys(resolve(bodySchema?.type === "array" ? bodySchema.items : bodySchema)?.properties ?? {});
          const baseQuery = queryParams
            .filter((p) => p.name === "integration_id")
            .map((p) => `${p.name}=${encodeURIComponent(stack.sandbox.demoIntegrationId)}`);
          const urlOf = (odd?: { param: string; value: string }, query: string[] = baseQuery) => {
            const p = path.replace(/\{(\w+)\}/g, (_, name: string) =>
              odd?.param === name ? odd.value : encodeURIComponent(svc.pathValue(name, pathParams.find((x) => x.name === name)?.schema)),
            );
            return `${svc.origin}${p}${query.length ? `?${query.join("&")}` : ""}`;
          };
          const send = async (url: string, odd: Odd, where: string, body?: { type: string; data: string | Buffer }) => {
            requests++;
            const res = await fetch(url, {
              method: method.toUpperCase(),
              headers: { authorization: `Bearer ${svc.token}`, ...(body ? { "content-type": body.type } : {}) },
              ...(body ? { body: typeof body.data === "string" ? body.data : new Uint8Array(body.data) } : {}),
            });
            const text = await res.text();
            const key = `${svc.name} ${Math.floor(res.status / 100)}xx`;
            counts[key] = (counts[key] ?? 0) + 1;
            const wrong = res.status >= 500 || STACK_TRACE.test(text) || (odd.unstorable && !(res.status >= 400 && res.status < 500));
            if (wrong)
              findings.push({
                service: svc.name,
                request: `${method.toUpperCase()} ${path} ${where}`,
                odd: odd.name,
                status: res.status,
                body: text.slice(0, 200),
              });
          };
          for (const odd of ODD) {
            for (const p of pathParams) await send(urlOf({ param: p.name, value: odd.url }), odd, `path ${p.name}`);
            for (const q of queryParams) {
              await send(
                urlOf(undefined, [...baseQuery.filter((b) => !b.startsWith(`${q.name}=`)), `${q.name}=${odd.url}`]),
                odd,
                `query ${q.name}`,
              );
            }
            if (!contentType) continue;
            const form = contentType === "application/x-www-form-urlencoded";
            for (const field of bodyFields.length ? bodyFields : ["x"]) {
              let data: string | Buffer;
              if (odd.raw) {
                data = form
                  ? Buffer.concat([Buffer.from(`${field}=`), odd.raw])
                  : Buffer.concat([
                      Buffer.from(`${bodySchema?.type === "array" ? "[" : ""}{${JSON.stringify(field)}:"`),
                      odd.raw,
                      Buffer.from(`"}${bodySchema?.type === "array" ? "]" : ""}`),
                    ]);
              } else if (form) {
                data = `grant_type=password&client_id=hirebridge&${field}=${odd.url}`;
              } else {
                const obj = { [field]: odd.json };
                data = JSON.stringify(bodySchema?.type === "array" ? [obj] : obj);
              }
              await send(urlOf(), odd, `body ${field}`, { type: contentType, data });
            }
          }
        }
      }
    }
    console.log(`openapi sweep: ${routes} routes, ${requests} requests, by status ${JSON.stringify(counts)}, findings ${findings.length}`);
    assert.ok(routes >= 50, `routes swept: ${routes}`);
    const summary = new Map<string, number>();
    for (const f of findings) {
      const k = `${f.service} ${f.request.split(" ").slice(0, 3).join(" ")} ${f.odd} → ${f.status} ${f.body.slice(0, 80)}`;
      summary.set(k, (summary.get(k) ?? 0) + 1);
    }
    assert.deepEqual(
      [...summary].map(([k, n]) => `${n} × ${k}`),
      [],
    );
  });

  /** Every operation of every service's document, with its path filled in, its query and its body's media type. */
  const operations = function* () {
    for (const svc of services) {
      for (const [path, methods] of Object.entries(svc.doc.paths)) {
        for (const [method, op] of Object.entries(methods)) {
          if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
          const params = op.parameters ?? [];
          const url = (query: string[]) => {
            const p = path.replace(/\{(\w+)\}/g, (_, name: string) =>
              encodeURIComponent(svc.pathValue(name, params.find((x) => x.in === "path" && x.name === name)?.schema)),
            );
            const base = params.some((x) => x.in === "query" && x.name === "integration_id")
              ? [`integration_id=${encodeURIComponent(stack.sandbox.demoIntegrationId)}`]
              : [];
            return `${svc.origin}${p}?${[...base, ...query].join("&")}`;
          };
          yield { svc, path, method, params, url, contentType: Object.keys(op.requestBody?.content ?? {})[0] };
        }
      }
    }
  };
  const call = async (svc: Service, method: string, url: string, body?: string) => {
    const res = await fetch(url, {
      method: method.toUpperCase(),
      headers: { authorization: `Bearer ${svc.token}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body } : {}),
    });
    return { status: res.status, text: await res.text() };
  };

  test("every route that takes a JSON body refuses one nested 10,000 deep: 422 (the token service: its own 400), never a 5xx", async () => {
    const nested = `{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    const wrong: string[] = [];
    let routes = 0;
    for (const { svc, path, method, url, contentType } of operations()) {
      // The webhook receivers check the signature first (401 unsigned); signed, they refuse it too (chaos/poison-events.test.ts).
      if (contentType !== "application/json" || path.includes("/webhooks/upstream/")) continue;
      routes++;
      const res = await call(svc, method, url([]), nested);
      const expected = svc.name === "token" ? 400 : 422;
      if (res.status !== expected || !/nested deeper than 64 levels/.test(res.text))
        wrong.push(`${svc.name} ${method.toUpperCase()} ${path} → ${res.status} ${res.text.slice(0, 120)}`);
    }
    assert.ok(routes >= 20, `JSON routes swept: ${routes}`);
    assert.deepEqual(wrong, []);
  });

  test("every limit and page_size refuses what is not a whole number in range: 422, never a 5xx", async () => {
    const values = ["1e309", "Infinity", "-Infinity", "NaN", "-1", "0", "1e6", "2.5", "99999999999999999999"];
    const wrong: string[] = [];
    let params = 0;
    for (const { svc, path, method, params: declared, url } of operations()) {
      for (const p of declared.filter((x) => x.in === "query" && (x.name === "limit" || x.name === "page_size"))) {
        params++;
        for (const v of values) {
          const res = await call(svc, method, url([`${p.name}=${encodeURIComponent(v)}`]));
          if (res.status !== 422)
            wrong.push(`${svc.name} ${method.toUpperCase()} ${path}?${p.name}=${v} → ${res.status} ${res.text.slice(0, 100)}`);
        }
      }
    }
    assert.ok(params >= 10, `limit/page_size parameters swept: ${params}`);
    assert.deepEqual(wrong, []);
  });
});
