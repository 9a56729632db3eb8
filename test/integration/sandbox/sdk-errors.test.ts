/** Error answers reach the official SDK as its typed errors (KomboGeneralError / KomboAtsError). */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { KomboAtsError, KomboGeneralError } from "@kombo-api/sdk/models/errors";
import { startSandbox, type TestSandbox } from "../../helpers/sandbox.js";
import { admin, sdkFor } from "./sdk.js";

let sandbox: TestSandbox;
before(async () => {
  sandbox = await startSandbox({ seed: 9, applications: 40 });
});
after(() => sandbox.close());

describe("errors reach the SDK as its typed errors", () => {
  test("a wrong API key is 401 PLATFORM.AUTHENTICATION_INVALID", async () => {
    await assert.rejects(sdkFor(sandbox, null, "wrong-key").general.checkApiKey(), (err: unknown) => {
      assert.ok(err instanceof KomboGeneralError);
      assert.equal(err.statusCode, 401);
      assert.deepEqual(err.data$.error, {
        code: "PLATFORM.AUTHENTICATION_INVALID",
        title: "Unauthorized",
        message: "The API key is missing or invalid.",
        log_url: null,
      });
      return true;
    });
  });

  test("an unknown integration is PLATFORM.INTEGRATION_NOT_FOUND, on /ats and on /integrations", async () => {
    await assert.rejects(sdkFor(sandbox, "greenhouse:doesnotexist").ats.getJobs(), (err: unknown) => {
      assert.ok(err instanceof KomboAtsError);
      assert.equal(err.error.code, "PLATFORM.INTEGRATION_NOT_FOUND");
      return true;
    });
    await assert.rejects(sdkFor(sandbox, null).general.getIntegrationDetails({ integration_id: "lever:nope" }), (err: unknown) => {
      assert.ok(err instanceof KomboGeneralError);
      assert.equal(err.statusCode, 404);
      assert.equal(err.error.code, "PLATFORM.INTEGRATION_NOT_FOUND");
      return true;
    });
  });

  test("a stage from another job is PLATFORM.INPUT_INVALID; an unknown application is 404", async () => {
    const kombo = sdkFor(sandbox);
    const apps = (await kombo.ats.getApplications({ page_size: 250 })).result.data.results;
    const a = apps[0]!;
    const other = apps.find((x) => x.job_id !== a.job_id)!;
    await assert.rejects(
      kombo.ats.moveApplicationToStage({ application_id: a.id, body: { stage_id: other.current_stage_id! } }),
      (err: unknown) => {
        assert.ok(err instanceof KomboAtsError);
        assert.equal(err.statusCode, 400);
        assert.equal(err.error.code, "PLATFORM.INPUT_INVALID");
        return true;
      },
    );
    await assert.rejects(
      kombo.ats.addApplicationNote({ application_id: "nope", body: { content: "x", content_type: "PLAIN_TEXT" } }),
      (err: unknown) => {
        assert.ok(err instanceof KomboAtsError);
        assert.equal(err.statusCode, 404);
        return true;
      },
    );
  });

  test("a closed job refuses applications with ATS.JOB_CLOSED", async () => {
    const kombo = sdkFor(sandbox);
    const { body: closed } = await admin<{ id: string }>(
      sandbox,
      "POST",
      `/sandbox/integrations/${encodeURIComponent(sandbox.demoIntegrationId)}/jobs`,
      {
        name: "Archived role",
        status: "CLOSED",
      },
    );
    await assert.rejects(
      kombo.ats.createApplication({
        job_id: closed.id,
        body: { candidate: { first_name: "A", last_name: "B", email_address: "ab@example.com" } },
      }),
      (err: unknown) => err instanceof KomboAtsError && err.error.code === "ATS.JOB_CLOSED" && err.statusCode === 400,
    );
  });

  test("a missing X-Integration-Id is 400 PLATFORM.INPUT_INVALID", async () => {
    await assert.rejects(sdkFor(sandbox, null).ats.getTags(), (err: unknown) => {
      assert.ok(err instanceof KomboAtsError);
      assert.equal(err.error.code, "PLATFORM.INPUT_INVALID");
      assert.equal(err.statusCode, 400);
      return true;
    });
  });
});

describe("delete integration", () => {
  test("deletes with the SDK's {} body; the integration is gone afterwards", async () => {
    const own = await startSandbox({ seed: 8, applications: 5 });
    try {
      const kombo = sdkFor(own, null);
      assert.deepEqual(await kombo.general.deleteIntegration({ integration_id: own.demoIntegrationId, body: {} }), {
        status: "success",
        data: {},
      });
      await assert.rejects(kombo.general.getIntegrationDetails({ integration_id: own.demoIntegrationId }), KomboGeneralError);
      await assert.rejects(sdkFor(own).ats.getJobs(), KomboAtsError);
    } finally {
      await own.close();
    }
  });
});

describe("bad input is 400 PLATFORM.INPUT_INVALID, never a 500", () => {
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${sandbox.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${sandbox.apiKey}`, "x-integration-id": sandbox.demoIntegrationId, ...(init.headers ?? {}) },
    });
  const expectInvalid = async (res: Response, message: RegExp) => {
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    const body = (await res.json()) as { status: string; error: { code: string; message: string } };
    assert.equal(body.status, "error");
    assert.equal(body.error.code, "PLATFORM.INPUT_INVALID");
    assert.match(body.error.message, message);
  };

  test("page sizes beyond the limits, unknown cursors, a cursor reused with other filters", async () => {
    await expectInvalid(await call("/ats/applications?page_size=251"), /query\.page_size/);
    await expectInvalid(await call("/ats/applications?page_size=0"), /query\.page_size/);
    const id = encodeURIComponent(sandbox.demoIntegrationId);
    await expectInvalid(await call(`/integrations/${id}/integration-fields?page_size=2001`), /query\.page_size/);
    assert.equal((await call(`/integrations/${id}/integration-fields?page_size=2000`)).status, 200);
    await expectInvalid(await call("/ats/applications?cursor=garbage"), /query\.cursor/);
    const first = (await (await call("/ats/applications?page_size=5")).json()) as { data: { next: string } };
    await expectInvalid(await call(`/ats/applications?page_size=5&outcomes=HIRED&cursor=${first.data.next}`), /other filters/);
    await expectInvalid(await call("/ats/applications?updated_after=yesterday"), /updated_after/);
    await expectInvalid(await call("/ats/applications?include_deleted=yes"), /include_deleted/);
  });

  test("malformed and incomplete bodies", async () => {
    const app = sandbox.context.store.get(sandbox.demoIntegrationId)!.data.applications.at(0);
    const json = { "content-type": "application/json" };
    await expectInvalid(await call(`/ats/applications/${app.id}/notes`, { method: "POST", headers: json, body: "{not json" }), /JSON/i);
    await expectInvalid(
      await call(`/ats/applications/${app.id}/notes`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ content_type: "HTML", content: "x" }),
      }),
      /content_type/,
    );
    await expectInvalid(
      await call(`/ats/applications/${app.id}/result-links`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ label: "x", url: "not a url" }),
      }),
      /body\.url/,
    );
    await expectInvalid(
      await call(`/ats/applications/${app.id}/stage`, { method: "PUT", headers: json, body: JSON.stringify({}) }),
      /body\.stage_id: is required/,
    );
    await expectInvalid(
      await call("/force-sync", { method: "POST", headers: json, body: JSON.stringify({ type: "PARTIAL" }) }),
      /FULL or DELTA/,
    );
    // A bare POST /force-sync (no body) means FULL.
    const bare = (await (await call("/force-sync", { method: "POST" })).json()) as { data: { type: string } };
    assert.equal(bare.data.type, "FULL");
  });
});
