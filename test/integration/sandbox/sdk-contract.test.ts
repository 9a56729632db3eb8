/**
 * The official @kombo-api/sdk (strict zod parsing of every answer) against the sandbox over HTTP:
 * every operation the proxy uses, every list paged to its end, errors as the SDK's typed errors.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { KomboGeneralError } from "@kombo-api/sdk/models/errors";
import { startSandbox, type TestSandbox } from "../../helpers/sandbox.js";
import { collectPages, sdkFor } from "./sdk.js";

let sandbox: TestSandbox;
before(async () => {
  // Syncs run long here, so a second force-sync finds the first still queued.
  sandbox = await startSandbox({ seed: 7, applications: 120, syncDurationMs: 5000 });
});
after(() => sandbox.close());

const demoData = () => sandbox.context.store.get(sandbox.demoIntegrationId)!.data;
const live = (rows: { deletedAt: number | null }[]) => rows.filter((r) => r.deletedAt === null).length;

describe("general operations", () => {
  test("check-api-key answers the environment", async () => {
    const res = await sdkFor(sandbox, null).general.checkApiKey();
    assert.equal(res.status, "success");
    assert.match(res.data.environment_id, /^[1-9A-HJ-NP-Za-km-z]{24}$/);
  });

  test("force-sync queues a sync, and a second call reports it as already queued", async () => {
    const kombo = sdkFor(sandbox);
    const first = await kombo.general.triggerSync({ type: "DELTA" });
    assert.deepEqual({ ...first.data, sync_id: "" }, { already_queued: false, sync_id: "", type: "DELTA" });
    const second = await kombo.general.triggerSync({ type: "FULL" });
    assert.deepEqual(second.data, { already_queued: true, sync_id: first.data.sync_id, type: "DELTA" });
  });

  test("tools lists the ATS tools, and other categories parse too", async () => {
    const kombo = sdkFor(sandbox, null);
    const ats = await kombo.general.getTools({ category: "ats" });
    assert.ok(ats.data.tools.some((t) => t.id === "greenhouse"));
    assert.ok(ats.data.tools.every((t) => t.coverage.read_models.some((m) => m.id === "ats_applications")));
    const hris = await kombo.general.getTools({ category: "hris" });
    assert.ok(hris.data.tools.some((t) => t.id === "personio"));
    assert.deepEqual((await kombo.general.getTools({ category: "lms" })).data.tools, []);
  });
});

describe("integration management", () => {
  test("details of the demo integration, its id percent-encoded in the path", async () => {
    const res = await sdkFor(sandbox, null).general.getIntegrationDetails({ integration_id: sandbox.demoIntegrationId });
    assert.equal(res.data.id, sandbox.demoIntegrationId);
    assert.equal(res.data.category, "ATS");
    assert.equal(res.data.status, "ACTIVE");
    assert.equal(res.data.setup_status, "COMPLETED");
    assert.deepEqual(res.data.end_user, {
      organization_name: "Demo Organisation",
      creator_email: "demo@hirebridge.local",
      origin_id: sandbox.demoOrgId,
    });
  });

  test("relink answers a link to the connect page", async () => {
    const res = await sdkFor(sandbox, null).general.createReconnectionLink({ integration_id: sandbox.demoIntegrationId, body: {} });
    assert.match(res.data.link, new RegExp(`^${sandbox.origin}/connect/link/[A-Za-z0-9_-]{32}$`));
  });

  test("integration fields page to the end (page_size up to 2000) and patch", async () => {
    const kombo = sdkFor(sandbox, null);
    const total = sandbox.context.store.get(sandbox.demoIntegrationId)!.fields.fields.size;
    const small = await collectPages(await kombo.general.getIntegrationFields({ integration_id: sandbox.demoIntegrationId, page_size: 9 }));
    assert.equal(small.results.length, total);
    assert.equal(small.pages, Math.ceil(total / 9));
    assert.equal(new Set(small.results.map((f) => f.id)).size, total);
    const big = await kombo.general.getIntegrationFields({ integration_id: sandbox.demoIntegrationId, page_size: 2000 });
    assert.equal(big.result.data.results.length, total);
    assert.equal(big.result.data.next, null);

    const field = small.results[0]!;
    const patched = await kombo.general.updateIntegrationField({
      integration_id: sandbox.demoIntegrationId,
      integration_field_id: field.id,
      body: { enable_passthrough: true },
    });
    assert.deepEqual(patched.data, { ...field, is_passthrough_enabled: true });
  });

  test("custom fields page to the end and their mapping can be set and cleared", async () => {
    const kombo = sdkFor(sandbox, null);
    const { results } = await collectPages(
      await kombo.general.getCustomFields({ integration_id: sandbox.demoIntegrationId, page_size: 2 }),
    );
    assert.equal(results.length, 7);
    const unmapped = results.find((c) => c.integration_field === null)!;
    const fields = (await kombo.general.getIntegrationFields({ integration_id: sandbox.demoIntegrationId, page_size: 2000 })).result.data
      .results;
    const target = fields.find((f) => f.type === "CUSTOM")!;
    const mapped = await kombo.general.updateCustomFieldMapping({
      integration_id: sandbox.demoIntegrationId,
      custom_field_id: unmapped.id,
      body: { integration_field_id: target.id },
    });
    assert.deepEqual(mapped.data.integration_field, { id: target.id, key: target.key, type: target.type, label: target.label });
    const cleared = await kombo.general.updateCustomFieldMapping({
      integration_id: sandbox.demoIntegrationId,
      custom_field_id: unmapped.id,
      body: { integration_field_id: null },
    });
    assert.deepEqual(cleared.data, unmapped);
  });
});

describe("ATS lists, each paged to its end", () => {
  const cases = [
    [
      "applications",
      (k: ReturnType<typeof sdkFor>) => k.ats.getApplications({ page_size: 17 }),
      () => live([...demoData().applications.values()]),
    ],
    [
      "candidates",
      (k: ReturnType<typeof sdkFor>) => k.ats.getCandidates({ page_size: 17 }),
      () => live([...demoData().candidates.values()]),
    ],
    ["jobs", (k: ReturnType<typeof sdkFor>) => k.ats.getJobs({ page_size: 2 }), () => live([...demoData().jobs.values()])],
    [
      "application stages",
      (k: ReturnType<typeof sdkFor>) => k.ats.getApplicationStages({ page_size: 5 }),
      () => live([...demoData().stages.values()]),
    ],
    ["tags", (k: ReturnType<typeof sdkFor>) => k.ats.getTags({ page_size: 3 }), () => live([...demoData().tags.values()])],
    ["users", (k: ReturnType<typeof sdkFor>) => k.ats.getUsers({ page_size: 2 }), () => live([...demoData().users.values()])],
    ["offers", (k: ReturnType<typeof sdkFor>) => k.ats.getOffers({ page_size: 2 }), () => live([...demoData().offers.values()])],
    [
      "rejection reasons",
      (k: ReturnType<typeof sdkFor>) => k.ats.getRejectionReasons({ page_size: 3 }),
      () => live([...demoData().rejectionReasons.values()]),
    ],
    [
      "interviews",
      (k: ReturnType<typeof sdkFor>) => k.ats.getInterviews({ page_size: 4 }),
      () => live([...demoData().interviews.values()]),
    ],
  ] as const;
  for (const [name, list, expected] of cases) {
    test(`${name}: every record once, accepted by the SDK's strict parser`, async () => {
      const first = await list(sdkFor(sandbox));
      const { results, pages } = await collectPages(
        first as AsyncIterable<{ result: { data: { results: { id: string }[]; next: string | null } } }>,
      );
      assert.ok(expected() > 0, `${name} should not be empty`);
      assert.equal(results.length, expected());
      assert.equal(new Set(results.map((r) => r.id)).size, results.length);
      assert.ok(pages > 1, `${name} should span several pages`);
    });
  }

  test("applications embed their candidate, stage and job, and every job has an AI Interview stage holding applications", async () => {
    const kombo = sdkFor(sandbox);
    const { results: apps } = await collectPages(await kombo.ats.getApplications({ page_size: 250 }));
    const { results: jobs } = await collectPages(await kombo.ats.getJobs({ page_size: 250 }));
    for (const job of jobs)
      assert.ok(
        job.stages.some((s) => s.name === "AI Interview"),
        `job ${job.id} lacks an AI Interview stage`,
      );
    const inAi = apps.filter((a) => a.current_stage?.name === "AI Interview");
    assert.ok(inAi.length >= 5, `only ${inAi.length} applications in AI Interview`);
    for (const a of apps) {
      const job = jobs.find((j) => j.id === a.job_id)!;
      assert.ok(
        job.stages.some((s) => s.id === a.current_stage_id),
        "the current stage is one of the job's stages",
      );
      assert.equal(a.candidate?.id, a.candidate_id);
      assert.equal(a.job?.name, job.name);
    }
    assert.ok(apps.some((a) => a.outcome === "HIRED") && apps.some((a) => a.outcome === "DECLINED" && a.rejection_reason_name));
  });

  test("filters: comma-separated ids, job_ids, outcomes, include_deleted, updated_after", async () => {
    const kombo = sdkFor(sandbox);
    const all = (await collectPages(await kombo.ats.getApplications({ page_size: 250 }))).results;
    const two = [all[3]!.id, all[10]!.id];
    const byIds = await collectPages(await kombo.ats.getApplications({ ids: two }));
    assert.deepEqual(byIds.results.map((a) => a.id).sort(), [...two].sort());

    const jobId = all[0]!.job_id!;
    const ofJob = await collectPages(await kombo.ats.getApplications({ job_ids: [jobId], page_size: 3 }));
    assert.deepEqual(
      ofJob.results.map((a) => a.id),
      all.filter((a) => a.job_id === jobId).map((a) => a.id),
    );

    const hired = await collectPages(await kombo.ats.getApplications({ outcomes: ["HIRED", "DECLINED"] }));
    assert.deepEqual(
      hired.results.map((a) => a.id),
      all.filter((a) => a.outcome !== "PENDING").map((a) => a.id),
    );

    const withDeleted = await collectPages(await kombo.ats.getApplications({ include_deleted: true, page_size: 250 }));
    assert.equal(withDeleted.results.length, demoData().applications.size);
    assert.ok(withDeleted.results.some((a) => a.remote_deleted_at !== null));

    // The SDK parses datetimes into Dates. Ten most recently changed applications, oldest first:
    const recent = all
      .map((a) => a.changed_at.getTime())
      .sort((x, y) => x - y)
      .slice(-10);
    const since = await collectPages(await kombo.ats.getApplications({ updated_after: new Date(recent[0]!), page_size: 3 }));
    assert.deepEqual(
      since.results.map((a) => a.changed_at.getTime()),
      recent,
    );
  });

  test("an unsupported filter empties the list unless ignore_unsupported_filters is true", async () => {
    const headers = { authorization: `Bearer ${sandbox.apiKey}`, "x-integration-id": sandbox.demoIntegrationId };
    const strict = await (await fetch(`${sandbox.url}/ats/jobs?department_ids=x`, { headers })).json();
    assert.deepEqual(strict, { status: "success", data: { next: null, results: [] } });
    const lenient = (await (
      await fetch(`${sandbox.url}/ats/jobs?department_ids=x&ignore_unsupported_filters=true&page_size=1`, { headers })
    ).json()) as {
      data: { results: unknown[] };
    };
    assert.equal(lenient.data.results.length, 1);
  });
});

describe("ATS actions", () => {
  test("move stage, note, result link and attachments parse with warnings", async () => {
    const kombo = sdkFor(sandbox);
    const app = (await kombo.ats.getApplications({ page_size: 1 })).result.data.results[0]!;
    const job = (await kombo.ats.getJobs({ ids: [app.job_id!] })).result.data.results[0]!;
    const target = job.stages.find((s) => s.id !== app.current_stage_id && s.name === "AI Interview") ?? job.stages[1]!;
    assert.deepEqual(await kombo.ats.moveApplicationToStage({ application_id: app.id, body: { stage_id: target.id } }), {
      status: "success",
      data: {},
      warnings: [],
    });
    assert.deepEqual(
      await kombo.ats.addApplicationNote({ application_id: app.id, body: { content: "Scored 87/100", content_type: "PLAIN_TEXT" } }),
      { status: "success", data: {}, warnings: [] },
    );
    assert.deepEqual(
      await kombo.ats.addApplicationResultLink({
        application_id: app.id,
        body: {
          label: "AI interview report",
          url: "https://hirebridge.example.com/r/1",
          details: { custom_field_name_prefix: "ai_", attributes: [{ key: "score", value: "87" }] },
        },
      }),
      { status: "success", data: {}, warnings: [] },
    );
    const files = await kombo.ats.getApplicationAttachments({ application_id: app.id });
    assert.deepEqual(files.warnings, []);
    assert.equal(files.data.results[0]?.type, "CV");
    const pdf = await fetch(files.data.results[0]!.data_url);
    assert.equal(pdf.headers.get("content-type"), "application/pdf");
    assert.match(Buffer.from(await pdf.arrayBuffer()).toString("latin1"), /^%PDF-1\.4[\s\S]*%%EOF\n$/);
  });

  test("candidate tags: add, remove with a JSON body on DELETE", async () => {
    const kombo = sdkFor(sandbox);
    const candidate = (await kombo.ats.getCandidates({ page_size: 1 })).result.data.results[0]!;
    assert.deepEqual(await kombo.ats.addCandidateTag({ candidate_id: candidate.id, body: { tag: { name: "AI Interview Passed" } } }), {
      status: "success",
      data: {},
      warnings: [],
    });
    assert.deepEqual(await kombo.ats.removeCandidateTag({ candidate_id: candidate.id, body: { tag: { name: "AI Interview Passed" } } }), {
      status: "success",
      data: {},
      warnings: [],
    });
    const again = await kombo.ats.removeCandidateTag({ candidate_id: candidate.id, body: { tag: { name: "AI Interview Passed" } } });
    assert.equal(again.warnings.length, 1);
  });

  test("create application answers the application with its full candidate", async () => {
    const kombo = sdkFor(sandbox);
    const job = (await kombo.ats.getJobs({ statuses: ["OPEN"], page_size: 1 })).result.data.results[0]!;
    const res = await kombo.ats.createApplication({
      job_id: job.id,
      body: {
        candidate: {
          first_name: "Ada",
          last_name: "Lovelace",
          email_address: "ada@example.com",
          location: { country: "GB", city: "London" },
        },
        source: { name: "Hirebridge" },
      },
    });
    assert.deepEqual(res.warnings, []);
    assert.equal(res.data.job_id, job.id);
    assert.equal(res.data.current_stage?.id, job.stages[0]!.id);
    assert.equal(res.data.outcome, "PENDING");
    assert.equal(res.data.candidate?.first_name, "Ada");
    assert.deepEqual(res.data.candidate?.email_addresses, [{ email_address: "ada@example.com", type: "PRIVATE" }]);
    assert.equal(res.data.candidate?.source, "Hirebridge");
  });
});

describe("connect operations", () => {
  test("create-link answers a link; an unknown activation token is a typed error", async () => {
    const kombo = sdkFor(sandbox, null);
    const link = await kombo.connect.createConnectionLink({
      end_user_email: "owner@acme.example",
      end_user_organization_name: "Acme",
      end_user_origin_id: "org-1",
      integration_category: "ATS",
    });
    assert.match(link.data.link, new RegExp(`^${sandbox.origin}/connect/link/`));
    await assert.rejects(kombo.connect.getIntegrationByToken({ token: "nope" }), (err: unknown) => {
      assert.ok(err instanceof KomboGeneralError);
      assert.equal(err.error.code, "PLATFORM.INPUT_INVALID");
      assert.equal(err.statusCode, 404);
      return true;
    });
  });
});
