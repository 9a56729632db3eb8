import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { OperationName } from "../../../src/services/proxy/operations/operations.table.js";
import { sample, sampleIds, type SampleIds } from "./operation-samples.js";
import { startProxyHarness, upstreamCalls, type ProxyHarness } from "./proxy-harness.js";

type Issue = { loc: (string | number)[]; msg: string; type: string };
type Case = { op: OperationName; why: string; url?: (url: string) => string; payload?: unknown; noBody?: boolean; detail: Issue[] };

const missing = (...loc: (string | number)[]): Issue => ({ loc, msg: "Field required", type: "missing" });
const dropQuery = (name: string) => (url: string) =>
  url.replace(new RegExp(`[?&]${name}=[^&]*`), (m) => (m.startsWith("?") ? "?" : "")).replace("?&", "?");
const addQuery = (extra: string) => (url: string) => `${url}${url.includes("?") ? "&" : "?"}${extra}`;

/** Every kind of input the spec constrains, per operation, with the exact 422 body. */
const CASES: Case[] = [
  { op: "checkApiKey", why: "integration_id is required", url: dropQuery("integration_id"), detail: [missing("query", "integration_id")] },
  { op: "forceSync", why: "integration_id is required", url: dropQuery("integration_id"), detail: [missing("query", "integration_id")] },
  {
    op: "forceSync",
    why: "type must match FULL or DELTA",
    url: (u) => u.replace("type=FULL", "type=full"),
    detail: [{ loc: ["query", "type"], msg: "String should match pattern '^(FULL|DELTA)$'", type: "string_pattern_mismatch" }],
  },
  {
    op: "forceSync",
    why: "the body is an object or null",
    payload: [1, 2],
    detail: [{ loc: ["body"], msg: "Input should be a valid dictionary or object", type: "model_type" }],
  },
  {
    op: "getTools",
    why: "category is hris, ats or assessment",
    url: (u) => u.replace("/ats", "/lms"),
    detail: [{ loc: ["path", "category"], msg: "Input should be 'hris', 'ats' or 'assessment'", type: "enum" }],
  },
  {
    op: "getIntegration",
    why: "bypass_cache is a boolean",
    url: addQuery("bypass_cache=sometimes"),
    detail: [{ loc: ["query", "bypass_cache"], msg: "Input should be a valid boolean", type: "bool_type" }],
  },
  { op: "relinkIntegration", why: "the body is required", noBody: true, detail: [missing("body")] },
  {
    op: "relinkIntegration",
    why: "language and link_type are enums",
    payload: { language: "pt", link_type: "EMAIL" },
    detail: [
      { loc: ["body", "language"], msg: "Input should be 'en', 'de', 'fr', 'it' or 'es'", type: "enum" },
      { loc: ["body", "link_type"], msg: "Input should be 'EMBEDDED' or 'MAGIC_LINK'", type: "enum" },
    ],
  },
  {
    op: "listIntegrationFields",
    why: "page_size is at most 2000",
    url: (u) => u.replace("page_size=2", "page_size=2001"),
    detail: [{ loc: ["query", "page_size"], msg: "Input should be less than or equal to 2000", type: "less_than_equal" }],
  },
  { op: "updateIntegrationField", why: "enable_passthrough is required", payload: {}, detail: [missing("body", "enable_passthrough")] },
  {
    op: "updateIntegrationField",
    why: "enable_passthrough is a boolean",
    payload: { enable_passthrough: "maybe" },
    detail: [{ loc: ["body", "enable_passthrough"], msg: "Input should be a valid boolean", type: "bool_type" }],
  },
  {
    op: "listCustomFields",
    why: "page_size is at most 250",
    url: (u) => u.replace("page_size=2", "page_size=251"),
    detail: [{ loc: ["query", "page_size"], msg: "Input should be less than or equal to 250", type: "less_than_equal" }],
  },
  {
    op: "updateCustomFieldMapping",
    why: "integration_field_id is required",
    payload: {},
    detail: [missing("body", "integration_field_id")],
  },
  {
    op: "listApplications",
    why: "integration_id is required",
    url: dropQuery("integration_id"),
    detail: [missing("query", "integration_id")],
  },
  {
    op: "listApplications",
    why: "page_size is at most 250 and include_deleted a boolean",
    url: (u) => u.replace("page_size=3", "page_size=251&include_deleted=perhaps"),
    detail: [
      { loc: ["query", "page_size"], msg: "Input should be less than or equal to 250", type: "less_than_equal" },
      { loc: ["query", "include_deleted"], msg: "Input should be a valid boolean", type: "bool_type" },
    ],
  },
  {
    op: "listJobs",
    why: "page_size is a positive integer",
    url: (u) => u.replace("page_size=2", "page_size=ten"),
    detail: [{ loc: ["query", "page_size"], msg: "Input should be a valid integer", type: "int_type" }],
  },
  { op: "moveApplicationStage", why: "stage_id is required", payload: {}, detail: [missing("body", "stage_id")] },
  {
    op: "moveApplicationStage",
    why: "integration_id is required",
    url: dropQuery("integration_id"),
    detail: [missing("query", "integration_id")],
  },
  {
    op: "addApplicationResultLink",
    why: "label and url are required; details needs its fields",
    payload: { details: { attributes: [{ key: "score" }] } },
    detail: [
      missing("body", "label"),
      missing("body", "url"),
      missing("body", "details", "custom_field_name_prefix"),
      missing("body", "details", "attributes", 0, "value"),
    ],
  },
  { op: "addApplicationNote", why: "content is required", payload: { content_type: "PLAIN_TEXT" }, detail: [missing("body", "content")] },
  {
    op: "addApplicationNote",
    why: "the only content_type is PLAIN_TEXT",
    payload: { content: "x", content_type: "HTML" },
    detail: [{ loc: ["body", "content_type"], msg: "Input should be 'PLAIN_TEXT'", type: "enum" }],
  },
  {
    op: "listApplicationAttachments",
    why: "integration_id is required",
    url: dropQuery("integration_id"),
    detail: [missing("query", "integration_id")],
  },
  { op: "addCandidateTag", why: "the tag needs a name", payload: { tag: {} }, detail: [missing("body", "tag", "name")] },
  { op: "removeCandidateTag", why: "the tag is required", payload: {}, detail: [missing("body", "tag")] },
  { op: "listTags", why: "integration_id is required", url: dropQuery("integration_id"), detail: [missing("query", "integration_id")] },
  {
    op: "listApplicationStages",
    why: "integration_id is required",
    url: dropQuery("integration_id"),
    detail: [missing("query", "integration_id")],
  },
  {
    op: "createJobApplication",
    why: "the candidate's names are required",
    payload: { candidate: { first_name: "Ada" } },
    detail: [missing("body", "candidate", "last_name")],
  },
  { op: "createJobApplication", why: "the candidate is required", payload: { stage_id: "x" }, detail: [missing("body", "candidate")] },
  { op: "listUsers", why: "integration_id is required", url: dropQuery("integration_id"), detail: [missing("query", "integration_id")] },
  { op: "listOffers", why: "integration_id is required", url: dropQuery("integration_id"), detail: [missing("query", "integration_id")] },
  {
    op: "listRejectionReasons",
    why: "integration_id is required",
    url: dropQuery("integration_id"),
    detail: [missing("query", "integration_id")],
  },
  {
    op: "listInterviews",
    why: "integration_id is required",
    url: dropQuery("integration_id"),
    detail: [missing("query", "integration_id")],
  },
  {
    op: "createConnectLink",
    why: "email and organisation name are required",
    payload: { integration_category: "ATS" },
    detail: [missing("body", "end_user_email"), missing("body", "end_user_organization_name")],
  },
  {
    op: "createConnectLink",
    why: "category, language and link_type are enums",
    payload: {
      end_user_email: "a@b.example",
      end_user_organization_name: "A",
      integration_category: "LMS",
      language: "pt",
      link_type: "EMAIL",
    },
    detail: [
      { loc: ["body", "integration_category"], msg: "Input should be 'HRIS', 'ATS' or 'ASSESSMENT'", type: "enum" },
      { loc: ["body", "language"], msg: "Input should be 'en', 'de', 'fr', 'it' or 'es'", type: "enum" },
      { loc: ["body", "link_type"], msg: "Input should be 'EMBEDDED' or 'MAGIC_LINK'", type: "enum" },
    ],
  },
  {
    op: "createConnectLink",
    why: "filtering is HRIS only",
    payload: { end_user_email: "a@b.example", end_user_organization_name: "A", integration_category: "ATS", enable_filtering: true },
    detail: [
      { loc: ["body", "enable_filtering"], msg: "Value error, filtering is only available for HRIS integrations", type: "value_error" },
    ],
  },
  { op: "createConnectLink", why: "the body is required", noBody: true, detail: [missing("body")] },
  { op: "activateConnection", why: "the activation token is required", payload: {}, detail: [missing("body", "activation_token")] },
  {
    op: "activateConnection",
    why: "the activation token is not empty",
    payload: { activation_token: "" },
    detail: [{ loc: ["body", "activation_token"], msg: "String should have at least 1 character", type: "string_too_short" }],
  },
];

describe("proxy: request validation (422, nothing sent upstream)", () => {
  let h: ProxyHarness;
  let ids: SampleIds;
  before(async () => {
    h = await startProxyHarness("postgres");
    ids = await sampleIds(h);
  });
  after(async () => {
    await h?.close();
  });

  for (const c of CASES) {
    test(`${c.op}: ${c.why}`, async () => {
      h.seen.length = 0;
      const s = sample(c.op, h.sandbox.demoIntegrationId, ids);
      const url = c.url ? c.url(s.url) : s.url;
      const payload = c.noBody ? undefined : "payload" in c ? c.payload : s.payload;
      const res = await h.call(s.method, url, { payload });
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(res.json(), { detail: c.detail });
      assert.deepEqual(upstreamCalls(h.seen), []);
    });
  }

  test("validation comes before tenancy: a bad request about a foreign integration is 422, not 404", async () => {
    const s = sample("moveApplicationStage", h.sandbox.demoIntegrationId, ids);
    const res = await h.call(s.method, s.url, { token: h.other.accessToken, payload: {} });
    assert.equal(res.statusCode, 422);
  });

  test("malformed JSON is 422 json_invalid", async () => {
    const s = sample("addApplicationNote", h.sandbox.demoIntegrationId, ids);
    const res = await h.call(s.method, s.url, { payload: "{nope", headers: { "content-type": "application/json" } });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), { detail: [{ loc: ["body", 0], msg: "JSON decode error", type: "json_invalid" }] });
  });
});
