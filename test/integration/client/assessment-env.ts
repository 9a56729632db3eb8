/**
 * What the SDK's and the CLI's assessment tests share on the embedded stack: an ASSESSMENT
 * integration of the demo organisation (recorded by Hirebridge through its integration-created
 * webhook), a job and an application of its own to order for, a template position (an interview
 * package), and the sandbox's admin action that stands in for the recruiter's click in the ATS.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { type Hirebridge, NotFoundError } from "../../../src/client/index.js";
import type { EmbeddedStack } from "./embedded-stack.js";

export type SandboxOrderView = {
  id: string;
  status: string;
  package_id: string;
  receiver: { state: string };
  result: null | { status: string; result_url: string };
};

/** A sandbox admin call; fails the test unless it answers `expect`. */
export async function sandboxAdmin<T>(env: EmbeddedStack, method: string, path: string, body?: unknown, expect = 200): Promise<T> {
  const res = await fetch(`${env.sandboxOrigin}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  assert.equal(res.status, expect, `${method} ${path}: ${text}`);
  return JSON.parse(text) as T;
}

/** Polls `probe` until it answers something (not undefined), for at most `ms`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export type AssessmentEnv = { integrationId: string; applicationId: string; templateId: string; templateName: string };

/** The ASSESSMENT integration, once Hirebridge knows it, with an application and a template of the demo organisation. */
export async function assessmentEnv(env: EmbeddedStack, hb: Hirebridge): Promise<AssessmentEnv> {
  const created = await sandboxAdmin<{ id: string }>(
    env,
    "POST",
    "/sandbox/integrations",
    { category: "ASSESSMENT", org_id: env.demo.orgId },
    201,
  );
  const integrationId = created.id;
  await eventually("the integration recorded by Hirebridge", async () => {
    try {
      return await hb.assessment.settings(integrationId);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  });
  const admin = `/sandbox/integrations/${encodeURIComponent(integrationId)}`;
  const job = await sandboxAdmin<{ id: string }>(env, "POST", `${admin}/jobs`, { name: "Platform Engineer" }, 201);
  const application = await sandboxAdmin<{ id: string }>(
    env,
    "POST",
    `${admin}/applications`,
    { job_id: job.id, candidate: { first_name: "Grace", last_name: "Hopper", email_address: "grace@example.com" } },
    201,
  );
  const templateName = `Platform interview ${Date.now()}`;
  const template = await hb.positions.create({
    name: templateName,
    state: "template",
    role_description: "Systems and reliability",
    min_score: 60,
    accepted_languages: ["en"],
  });
  return { integrationId, applicationId: application.id, templateId: template.id, templateName };
}

/** The recruiter's click in the ATS: an order of `packageId` for the env's application. */
export const placeOrder = (env: EmbeddedStack, a: AssessmentEnv, packageId: string) =>
  sandboxAdmin<SandboxOrderView>(
    env,
    "POST",
    `/sandbox/integrations/${encodeURIComponent(a.integrationId)}/assessment-orders`,
    { application_id: a.applicationId, package_id: packageId },
    201,
  );

export const orderView = (env: EmbeddedStack, a: AssessmentEnv, orderId: string) =>
  sandboxAdmin<SandboxOrderView>(env, "GET", `/sandbox/integrations/${encodeURIComponent(a.integrationId)}/assessment-orders/${orderId}`);
