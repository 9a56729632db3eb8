/** What the assessment tests share: an ASSESSMENT integration with packages, and the admin calls on orders. */
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import type { TestSandbox } from "../../helpers/sandbox.js";
import { type Respond, sandboxWithReceiver } from "./receiver.js";
import { admin, sdkFor } from "./sdk.js";

export const PDF = Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n");
export const PACKAGES = [
  { id: "pkg-video", type: "VIDEO_INTERVIEW" as const, name: "AI video interview", description: "Structured interview, 20 min" },
  { id: "pkg-skills", type: "SKILLS_TEST" as const, name: "Skills test", description: "Take-home" },
];

export type OrderView = {
  id: string;
  status: string;
  package_id: string;
  package_name: string | null;
  inline: boolean;
  candidate: { remote_id: string; email: string; first_name: string; last_name: string };
  application: { remote_id: string };
  job: { remote_id: string; name: string; hiring_team: { hiring_team_roles: string[] }[] };
  receiver: { state: string; last_status: number | null; event_id: string };
  rejection_message: string | null;
  assessment_url: string | null;
  result: null | {
    status: string;
    score: number;
    max_score: number;
    result_url: string;
    completed_at: string;
    attributes: unknown[];
    remote_fields: unknown;
    written_at: string;
  };
  attachments: { name: string; content_type: string; size: number | null; stored: boolean; download_url: string | null }[];
};

/** A sandbox with an ASSESSMENT integration holding PACKAGES, and a receiver answering with `respond`. */
export async function assessmentSetup(t: TestContext, respond?: Respond) {
  const { receiver, sandbox } = await sandboxWithReceiver(t, { webhookSecret: "whsec_assess" }, respond);
  const created = await admin<{ id: string; category: string; tool: string; counts: { applications: number } }>(
    sandbox,
    "POST",
    "/sandbox/integrations",
    { category: "ASSESSMENT", org_id: "org-assess" },
  );
  assert.equal(created.status, 201);
  const id = created.body.id;
  const kombo = sdkFor(sandbox, id);
  await kombo.assessment.setPackages({ packages: PACKAGES });
  return { receiver, sandbox, id, kombo, created: created.body };
}

export const liveApplications = (sandbox: TestSandbox, id: string) =>
  [...sandbox.context.store.get(id)!.data.applications.values()].filter((a) => a.deletedAt === null);

export function placeOrder(sandbox: TestSandbox, id: string, body: Record<string, unknown>) {
  return admin<OrderView & { error?: { message: string } }>(
    sandbox,
    "POST",
    `/sandbox/integrations/${encodeURIComponent(id)}/assessment-orders`,
    body,
  );
}

export const orderView = (sandbox: TestSandbox, id: string, orderId: string) =>
  admin<OrderView>(sandbox, "GET", `/sandbox/integrations/${encodeURIComponent(id)}/assessment-orders/${orderId}`);

/** Three accepted orders; returns their ids in creation order. */
export async function threeOrders(sandbox: TestSandbox, id: string): Promise<string[]> {
  const apps = liveApplications(sandbox, id);
  const ids: string[] = [];
  for (const [i, pkg] of ["pkg-video", "pkg-skills", "pkg-video"].entries()) {
    ids.push((await placeOrder(sandbox, id, { application_id: apps[i]!.id, package_id: pkg })).body.id);
  }
  return ids;
}
