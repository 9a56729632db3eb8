/**
 * The sandbox's answers checked against the upstream's schemas in src/contracts/upstream (compiled
 * with TypeBox), every list paged to its end: the schemas the sandbox serialises with and the
 * records the sync engine reads are the ones on the wire. The official SDK's check
 * (sdk-contract.test.ts) stays the outside witness that the schemas are the upstream's.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type TSchema, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import {
  ApplicationSchema,
  ApplicationStageSchema,
  AttachmentSchema,
  CandidateSchema,
  CheckApiKeyResultSchema,
  IntegrationDetailsSchema,
  InterviewSchema,
  JobSchema,
  OfferSchema,
  RejectionReasonSchema,
  TagSchema,
  UpstreamActionSuccessSchema,
  UpstreamErrorEnvelopeSchema,
  UpstreamListSuccessSchema,
  UpstreamSuccessSchema,
  UserSchema,
  WEBHOOK_EVENT_TYPES,
  WebhookEventSchema,
} from "../../../src/contracts/upstream/index.js";
import { startSandbox, type TestSandbox } from "../../helpers/sandbox.js";
import { admin, sdkFor } from "./sdk.js";
import { sandboxWithReceiver } from "./receiver.js";

let sandbox: TestSandbox;
before(async () => {
  sandbox = await startSandbox({ seed: 11, applications: 60 });
});
after(() => sandbox.close());

async function get(path: string, integrationId: string | null = sandbox.demoIntegrationId): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${sandbox.url}${path}`, {
    headers: { authorization: `Bearer ${sandbox.apiKey}`, ...(integrationId ? { "x-integration-id": integrationId } : {}) },
  });
  return { status: res.status, body: await res.json() };
}

/** Asserts that `body` is valid, naming the first few failures (path and message) when it is not. */
function assertMatches(schema: TSchema, body: unknown, what: string): void {
  const check = TypeCompiler.Compile(schema);
  if (check.Check(body)) return;
  const errors = [...check.Errors(body)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
  assert.fail(`${what} does not match its schema:\n${errors.join("\n")}`);
}

const LISTS: [string, TSchema][] = [
  ["/ats/applications", ApplicationSchema],
  ["/ats/candidates", CandidateSchema],
  ["/ats/jobs", JobSchema],
  ["/ats/application-stages", ApplicationStageSchema],
  ["/ats/tags", TagSchema],
  ["/ats/users", UserSchema],
  ["/ats/offers", OfferSchema],
  ["/ats/rejection-reasons", RejectionReasonSchema],
  ["/ats/interviews", InterviewSchema],
];

describe("sandbox answers match the upstream schemas", () => {
  for (const [path, record] of LISTS) {
    test(`${path}: every page is a list envelope of valid records`, async () => {
      let cursor: string | null = null;
      let records = 0;
      do {
        const res = await get(`${path}?page_size=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        assert.equal(res.status, 200);
        assertMatches(UpstreamListSuccessSchema(record), res.body, `a page of ${path}`);
        const page = (res.body as { data: { next: string | null; results: unknown[] } }).data;
        records += page.results.length;
        cursor = page.next;
      } while (cursor);
      assert.ok(records > 0, `${path} listed no record`);
    });
  }

  test("an application's attachments, the integration details and check-api-key", async () => {
    const apps = await get("/ats/applications?page_size=1");
    const id = (apps.body as { data: { results: { id: string }[] } }).data.results[0]!.id;
    const attachments = await get(`/ats/applications/${encodeURIComponent(id)}/attachments`);
    assert.equal(attachments.status, 200);
    assertMatches(UpstreamActionSuccessSchema(Type.Object({ results: Type.Array(AttachmentSchema) })), attachments.body, "attachments");
    const details = await get(`/integrations/${encodeURIComponent(sandbox.demoIntegrationId)}`, null);
    assertMatches(UpstreamSuccessSchema(IntegrationDetailsSchema), details.body, "integration details");
    assertMatches(UpstreamSuccessSchema(CheckApiKeyResultSchema), (await get("/check-api-key", null)).body, "check-api-key");
  });

  test("errors are the error envelope with a code of the closed list, and the schema refuses any other code", async () => {
    const res = await get("/ats/jobs", "no-such-integration");
    assert.equal(res.status, 404);
    assertMatches(UpstreamErrorEnvelopeSchema, res.body, "the unknown-integration error");
    const other = { status: "error", error: { code: "PLATFORM.SOMETHING_ELSE", title: null, message: "x", log_url: null } };
    assert.equal(TypeCompiler.Compile(UpstreamErrorEnvelopeSchema).Check(other), false);
  });
});

test("the webhook events the sandbox sends match their schemas, every type", async (t) => {
  const { receiver, sandbox: hooks } = await sandboxWithReceiver(t);
  const id = encodeURIComponent(hooks.demoIntegrationId);
  await sdkFor(hooks).general.triggerSync({ type: "FULL" }); // sync-finished, then data-changed
  await admin(hooks, "PUT", `/sandbox/integrations/${id}/state`, { state: "INVALID" }); // integration-state-changed
  const link = await sdkFor(hooks, null).connect.createConnectionLink({
    end_user_email: "a@b.example",
    end_user_organization_name: "B",
    integration_category: "ATS",
  });
  const token = link.data.link.split("/").at(-1)!;
  const post = (path: string) =>
    fetch(`${hooks.origin}/connect/link/${token}/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tool_id: "lever" }),
    });
  assert.equal((await post("fail")).status, 200); // connection-flow-failed
  assert.equal((await post("confirm")).status, 200); // integration-created
  await sdkFor(hooks, null).general.deleteIntegration({ integration_id: hooks.demoIntegrationId, body: {} }); // integration-deleted
  for (const type of WEBHOOK_EVENT_TYPES) {
    const event = await receiver.waitFor((r) => r.body.type === type);
    assertMatches(WebhookEventSchema(type), event.body, `the ${type} event`);
  }
  const broken = { ...receiver.received[0]!.body, data: { ...receiver.received[0]!.body.data, integration_category: "CRM" } };
  assert.equal(TypeCompiler.Compile(WebhookEventSchema(broken.type as "sync-finished")).Check(broken), false);
});
