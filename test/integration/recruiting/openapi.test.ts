import assert from "node:assert/strict";
import { test } from "node:test";
import { CandidateCreateSchema } from "../../../src/contracts/recruiting/candidates.js";
import { PositionCreateSchema } from "../../../src/contracts/recruiting/positions.js";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase } from "../../helpers/db.js";

type Operation = {
  security?: unknown;
  responses: Record<string, { content?: { "application/json": { schema: Record<string, unknown> } } }>;
  requestBody?: { content: { "application/json": { schema: Record<string, unknown> } } };
  parameters?: { in: string; name: string; required?: boolean }[];
};

/** Every route, with the statuses its OpenAPI entry must declare. */
const EXPECTED: [string, string, string[]][] = [
  ["get", "/api/v1/org_id", ["200", "401", "403"]],
  ["get", "/api/v1/org/{org_id}/position", ["200", "401", "403", "422"]],
  ["post", "/api/v1/org/{org_id}/position", ["200", "401", "403", "409", "422"]],
  ["get", "/api/v1/org/{org_id}/position/{position_id}", ["200", "401", "403", "404", "422"]],
  ["put", "/api/v1/org/{org_id}/position/{position_id}", ["200", "401", "403", "404", "409", "422"]],
  ["delete", "/api/v1/org/{org_id}/position/{position_id}", ["200", "401", "403", "404", "422"]],
  ["get", "/api/v1/org/{org_id}/positions/{position_id}/", ["200", "401", "403", "404", "422"]],
  ["post", "/api/v1/org/{org_id}/positions/{position_id}/", ["200", "401", "403", "404", "409", "422"]],
  ["put", "/api/v1/org/{org_id}/positions/{position_id}/", ["200", "401", "403", "404", "409", "422"]],
  ["get", "/api/v1/org/{org_id}/positions/{position_id}/candidates/{candidate_id}/", ["200", "401", "403", "404", "422"]],
  ["put", "/api/v1/org/{org_id}/positions/{position_id}/candidates/{candidate_id}/", ["200", "401", "403", "404", "409", "422"]],
  ["delete", "/api/v1/org/{org_id}/positions/{position_id}/candidates/{candidate_id}/", ["200", "401", "403", "404", "422"]],
  ["get", "/api/v1/org/{org_id}/positions/{position_id}/candidates/{candidate_id}/export", ["200", "401", "403", "404", "422"]],
  ["delete", "/api/v1/org/{org_id}/erasure-suppressions/{suppression_id}/", ["200", "401", "403", "404", "422"]],
  ["get", "/api/v1/org/{org_id}/positions/{position_id}/candidates/{candidate_id}/interview/", ["200", "401", "403", "404", "422"]],
  ["put", "/api/v1/org/{org_id}/positions/{position_id}/candidates/{candidate_id}/interview/", ["200", "401", "403", "404", "409", "422"]],
  [
    "post",
    "/api/v1/org/{org_id}/positions/{position_id}/candidates/{candidate_id}/interview/correction",
    ["200", "401", "403", "404", "409", "422"],
  ],
];

test("the OpenAPI 3.1 document lists every route from the same schemas that validate", async (t) => {
  const database = await freshDatabase("postgres"); // the document does not depend on the storage kind
  const app = await buildRecruitingApp({
    config: testConfig(),
    database,
    logger: silentLogger(),
    verify: async () => {
      throw new Error("no token is verified here");
    },
  });
  t.after(async () => {
    await app.close();
    await database.dispose();
  });
  const res = await app.inject({ method: "GET", url: "/api/v1/openapi.json" });
  assert.equal(res.statusCode, 200);
  const doc = res.json() as {
    openapi: string;
    paths: Record<string, Record<string, Operation>>;
    components: { securitySchemes: Record<string, { type: string }> };
  };
  assert.equal(doc.openapi, "3.1.0");
  assert.deepEqual(doc.components.securitySchemes["bearer"], { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  // The docs page's Authorize button logs in at the token service (test/integration/shared/api-docs.test.ts).
  assert.equal(doc.components.securitySchemes["oauth"]?.type, "oauth2");

  const listed = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
  assert.deepEqual(listed.sort(), EXPECTED.map(([m, p]) => `${m} ${p}`).sort());
  for (const [method, path, statuses] of EXPECTED) {
    const op = doc.paths[path]![method]!;
    assert.deepEqual(op.security, [{ bearer: [] }, { oauth: [] }], `${method} ${path}`);
    assert.deepEqual(Object.keys(op.responses).sort(), statuses.sort(), `${method} ${path}`);
    for (const param of op.parameters?.filter((p) => p.in === "path") ?? []) assert.equal(param.required, true);
  }

  // Request bodies are the contracts themselves: read-only fields marked, unknown fields refused.
  const positionBody = doc.paths["/api/v1/org/{org_id}/position"]!["post"]!.requestBody!.content["application/json"].schema;
  assert.deepEqual(positionBody, JSON.parse(JSON.stringify(PositionCreateSchema)));
  assert.equal(positionBody["additionalProperties"], false);
  assert.deepEqual(positionBody["required"], ["name"]);
  const props = positionBody["properties"] as Record<string, { readOnly?: boolean }>;
  assert.deepEqual(
    Object.keys(props).filter((k) => props[k]!.readOnly),
    ["id", "created_at", "updated_at"],
  );
  const candidateBody =
    doc.paths["/api/v1/org/{org_id}/positions/{position_id}/"]!["post"]!.requestBody!.content["application/json"].schema;
  assert.deepEqual(candidateBody, JSON.parse(JSON.stringify(CandidateCreateSchema)));
  assert.deepEqual((candidateBody["required"] as string[]).sort(), ["email", "language", "name", "phone"]);

  // Responses: Position has its spec fields, validation errors are HTTPValidationError.
  const positionOk =
    doc.paths["/api/v1/org/{org_id}/position/{position_id}"]!["get"]!.responses["200"]!.content!["application/json"].schema;
  assert.deepEqual(
    Object.keys(positionOk["properties"] as object).sort(),
    [
      "accepted_languages",
      "agent_id",
      "auto_update_stages",
      "candidate_stage",
      "created_at",
      "department",
      "id",
      "location",
      "min_score",
      "name",
      "needs_reviewed_stage",
      "passed_stage",
      "position_calender_link",
      "rejected_stage",
      "role_description",
      "state",
      "updated_at",
      "upstream_integration_id",
      "upstream_job_id_id",
    ].sort(),
  );
  const invalid = doc.paths["/api/v1/org/{org_id}/position"]!["post"]!.responses["422"]!.content!["application/json"].schema;
  assert.equal(JSON.stringify(invalid).includes("detail"), true);

  const docs = await app.inject({ method: "GET", url: "/docs/" });
  assert.equal(docs.statusCode, 200);
  assert.match(docs.body, /swagger/i);
});
