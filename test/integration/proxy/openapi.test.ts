import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { buildProxyWithSync } from "../../../src/runtime/wiring.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase } from "../../helpers/db.js";

type Param = { name: string; in: string; required?: boolean; schema: Record<string, unknown> };
type Op = {
  operationId: string;
  tags: string[];
  description: string;
  security: unknown[];
  parameters?: Param[];
  requestBody?: {
    required?: boolean;
    content: { "application/json": { schema: { required?: string[]; properties: Record<string, Record<string, unknown>> } } };
  };
  responses: Record<string, unknown>;
};

const COMMON_LIST = ["integration_id", "cursor", "page_size", "updated_after", "include_deleted", "ids", "remote_ids"];

/** The spec's operations: method, path, query and path parameters, required body fields (null: no body). */
const SPEC: [string, string, string[], string[], string[] | null][] = [
  ["get", "/general/check-api-key", ["integration_id"], [], null],
  ["post", "/general/force-sync", ["integration_id", "type"], [], []],
  ["get", "/general/tools/{category}", [], ["category"], null],
  ["get", "/integrations/{integration_id}", ["bypass_cache"], ["integration_id"], null],
  ["delete", "/integrations/{integration_id}", [], ["integration_id"], null],
  ["post", "/integrations/{integration_id}/relink", [], ["integration_id"], []],
  ["get", "/integrations/{integration_id}/integration-fields", ["cursor", "page_size"], ["integration_id"], null],
  ["patch", "/integrations/{integration_id}/integration-fields/{field_id}", [], ["integration_id", "field_id"], ["enable_passthrough"]],
  ["get", "/integrations/{integration_id}/custom-fields", ["cursor", "page_size"], ["integration_id"], null],
  [
    "put",
    "/integrations/{integration_id}/custom-fields/{custom_field_id}",
    [],
    ["integration_id", "custom_field_id"],
    ["integration_field_id"],
  ],
  [
    "get",
    "/ats/applications",
    [...COMMON_LIST, "job_ids", "current_stage_ids", "candidate_ids", "rejection_reason_ids", "outcome", "custom_fields"],
    [],
    null,
  ],
  ["put", "/ats/applications/{application_id}/stage", ["integration_id"], ["application_id"], ["stage_id"]],
  ["post", "/ats/applications/{application_id}/result-links", ["integration_id"], ["application_id"], ["label", "url"]],
  ["post", "/ats/applications/{application_id}/notes", ["integration_id"], ["application_id"], ["content"]],
  ["get", "/ats/applications/{application_id}/attachments", COMMON_LIST, ["application_id"], null],
  ["post", "/ats/candidates/{candidate_id}/tags", ["integration_id"], ["candidate_id"], ["tag"]],
  ["delete", "/ats/candidates/{candidate_id}/tags", ["integration_id"], ["candidate_id"], ["tag"]],
  ["get", "/ats/tags", COMMON_LIST, [], null],
  ["get", "/ats/application-stages", [...COMMON_LIST, "job_ids"], [], null],
  ["get", "/ats/jobs", [...COMMON_LIST, "employment_type", "job_status", "department_ids", "office_ids", "custom_fields"], [], null],
  ["post", "/ats/jobs/{job_id}/applications", ["integration_id"], ["job_id"], ["candidate"]],
  ["get", "/ats/users", [...COMMON_LIST, "email"], [], null],
  ["get", "/ats/offers", [...COMMON_LIST, "application_ids", "status"], [], null],
  ["get", "/ats/rejection-reasons", COMMON_LIST, [], null],
  ["get", "/ats/interviews", [...COMMON_LIST, "application_ids", "stage_ids", "interviewer_ids"], [], null],
  ["post", "/connect/create-link", [], [], ["end_user_email", "end_user_organization_name"]],
  ["post", "/connect/activate", [], [], ["activation_token"]],
];

describe("proxy: OpenAPI 3.1 document and docs page", () => {
  let app: App;
  let doc: { openapi: string; info: { version: string }; paths: Record<string, Record<string, Op>> };
  let dispose: () => Promise<void>;
  before(async () => {
    const database = await freshDatabase("postgres");
    dispose = () => database.dispose();
    app = await buildProxyWithSync({
      config: testConfig(),
      database,
      logger: silentLogger(),
      verify: async () => {
        throw new Error("not called");
      },
    });
    const res = await app.inject({ url: "/api/v1/openapi.json" });
    assert.equal(res.statusCode, 200);
    doc = res.json();
  });
  after(async () => {
    await app?.close();
    await dispose?.();
  });

  test("is OpenAPI 3.1, version 1.0.0, and lists every operation of the spec plus activation", () => {
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.info.version, "1.0.0");
    const listed = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)));
    // (The webhook receivers and the sync trigger are documented by their own suite.)
    for (const [m, p] of SPEC) assert.ok(listed.has(`${m} /api/v1${p}`), `${m} ${p} is listed`);
  });

  for (const [method, path, query, params, body] of SPEC) {
    test(`${method.toUpperCase()} ${path}: parameters, body, bearer security and upstream mapping`, () => {
      const op = doc.paths[`/api/v1${path}`]![method]!;
      assert.deepEqual(op.security, [{ bearer: [] }, { oauth: [] }]);
      assert.match(op.description, /\*\*Upstream:\*\* `(GET|POST|PUT|PATCH|DELETE) \//);
      const parameters = op.parameters ?? [];
      assert.deepEqual(
        parameters
          .filter((p) => p.in === "query")
          .map((p) => p.name)
          .sort(),
        [...query].sort(),
      );
      assert.deepEqual(
        parameters
          .filter((p) => p.in === "path")
          .map((p) => p.name)
          .sort(),
        [...params].sort(),
      );
      for (const p of parameters) {
        if (p.in === "path" || p.name === "integration_id") assert.equal(p.required, true, `${p.name} is required`);
        else assert.notEqual(p.required, true, `${p.name} is optional`);
      }
      const pageSize = parameters.find((p) => p.name === "page_size");
      if (pageSize) {
        const max = path.endsWith("/integration-fields") ? 2000 : 250;
        assert.equal((pageSize.schema as { maximum?: number }).maximum, max);
      }
      if (body === null) assert.equal(op.requestBody, undefined);
      else assert.deepEqual([...(op.requestBody!.content["application/json"].schema.required ?? [])].sort(), [...body].sort());
      for (const status of ["200", "401", "422"]) assert.ok(op.responses[status], `documents ${status}`);
    });
  }

  test("enums and defaults are stated as the spec states them", () => {
    const param = (path: string, method: string, name: string) =>
      doc.paths[`/api/v1${path}`]![method]!.parameters!.find((p) => p.name === name)!;
    assert.deepEqual(param("/general/tools/{category}", "get", "category").schema["enum"], ["hris", "ats", "assessment"]);
    const type = param("/general/force-sync", "post", "type").schema;
    assert.equal(type["default"], "DELTA");
    assert.equal(type["pattern"], "^(FULL|DELTA)$");
    assert.equal(param("/integrations/{integration_id}", "get", "bypass_cache").schema["default"], false);
    const link = doc.paths["/api/v1/connect/create-link"]!["post"]!.requestBody!.content["application/json"].schema.properties;
    assert.equal(link["integration_category"]!["default"], "HRIS");
    assert.equal(link["language"]!["default"], "en");
    assert.equal(link["link_type"]!["default"], "EMBEDDED");
    assert.equal(link["enable_filtering"]!["default"], false);
    assert.equal(link["enable_field_mapping"]!["default"], false);
    const note =
      doc.paths["/api/v1/ats/applications/{application_id}/notes"]!["post"]!.requestBody!.content["application/json"].schema.properties;
    assert.equal(note["content_type"]!["default"], "PLAIN_TEXT");
    assert.match(doc.paths["/api/v1/ats/jobs"]!["get"]!.description, /`job_status` → `statuses`/);
    assert.match(doc.paths["/api/v1/general/tools/{category}"]!["get"]!.description, /5 hours/);
  });

  test("the docs page is served at /docs", async () => {
    const res = await app.inject({ url: "/docs/" });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers["content-type"]), /text\/html/);
  });
});
