import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConnectCreateLinkRequestSchema, JobApplicationCreateSchema } from "../../../src/contracts/proxy/index.js";
import { OPERATIONS } from "../../../src/services/proxy/operations/operations.table.js";
import { shapeBody, toUpstreamRequest } from "../../../src/services/proxy/operations/upstream-request.js";
import { parseRetryAfter } from "../../../src/contracts/retry-after.js";
import { retryDelay } from "../../../src/shared/upstream/retry-policy.js";

describe("proxy: mapping a validated request onto the upstream", () => {
  test("path ids are percent-encoded, integration_id becomes X-Integration-Id, names are translated, empties dropped", () => {
    const req = toUpstreamRequest(OPERATIONS.listJobs, {
      query: {
        integration_id: "greenhouse:abc",
        job_status: "OPEN",
        employment_type: "FULL_TIME",
        cursor: "",
        page_size: null,
        include_deleted: false,
      },
      requestId: "r1",
    });
    assert.deepEqual(req, {
      method: "GET",
      path: "/ats/jobs",
      query: { statuses: "OPEN", employment_types: "FULL_TIME", include_deleted: "false" },
      integrationId: "greenhouse:abc",
      body: undefined,
      requestId: "r1",
      read: true,
      operation: "listJobs",
    });
    const del = toUpstreamRequest(OPERATIONS.deleteIntegration, { params: { integration_id: "greenhouse:a/b?c" }, requestId: "r2" });
    assert.equal(del.path, "/integrations/greenhouse%3Aa%2Fb%3Fc");
    assert.deepEqual(del.body, {}, "the upstream's DELETE takes {}");
    assert.equal(del.integrationId, undefined, "integration management takes no X-Integration-Id");
    assert.equal(del.read, false);
    const details = toUpstreamRequest(OPERATIONS.getIntegration, {
      params: { integration_id: "x:y" },
      query: { bypass_cache: true },
      requestId: "r3",
    });
    assert.deepEqual(details.query, {}, "bypass_cache is the proxy's own");
  });

  test("bodies keep the contract's fields; null optional fields take the spec's default or are left out", () => {
    assert.deepEqual(
      shapeBody(ConnectCreateLinkRequestSchema, {
        end_user_email: "a@b.example",
        end_user_organization_name: "A",
        end_user_origin_id: null,
        integration_category: null,
        language: null,
        enable_filtering: null,
        link_type: "MAGIC_LINK",
        unknown_field: 1,
      }),
      {
        end_user_email: "a@b.example",
        end_user_organization_name: "A",
        integration_category: "HRIS",
        language: "en",
        enable_filtering: false,
        link_type: "MAGIC_LINK",
      },
    );
    assert.deepEqual(
      shapeBody(JobApplicationCreateSchema, {
        candidate: { first_name: "A", last_name: "B", company: null, hobby: "chess" },
        custom_fields: { anything: { nested: [1] } },
        stage_id: null,
      }),
      { candidate: { first_name: "A", last_name: "B" }, custom_fields: { anything: { nested: [1] } } },
    );
  });

  test("Retry-After is read as seconds or an HTTP date; waits grow, are jittered and never shorter than it", () => {
    assert.equal(parseRetryAfter("2", 0), 2000);
    assert.equal(parseRetryAfter(["3", "9"], 0), 3000);
    assert.equal(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1)), 10_000);
    assert.equal(parseRetryAfter("soon", 0), null);
    assert.equal(parseRetryAfter(undefined, 0), null);
    const policy = { retries: 3, baseDelayMs: 100, maxTotalWaitMs: 10_000 };
    assert.equal(
      retryDelay(policy, 1, undefined, () => 0),
      50,
    );
    assert.equal(
      retryDelay(policy, 1, undefined, () => 1),
      100,
    );
    assert.equal(
      retryDelay(policy, 3, undefined, () => 1),
      400,
    );
    assert.equal(
      retryDelay(policy, 1, 1500, () => 1),
      1500,
    );
  });
});
