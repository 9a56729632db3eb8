/**
 * The ATS page (issue 42): a read-mostly HTML view of the sandbox as the customer's ATS shows it
 * (integrations, jobs with their stages, applications by stage with the notes, result links and
 * assessment results Hirebridge wrote), with buttons to move an application and to place an
 * assessment order. Like the admin surface it has no sign-in: the sandbox is a local tool.
 */
import { Type } from "@sinclair/typebox";
import type { App } from "../../../shared/http/create-app.js";
import { findIntegration } from "../admin/admin-integrations.routes.js";
import type { SandboxContext } from "../context.js";
import { recordNotFound } from "../errors.js";
import type { ApplicationRow, JobRow, StageRow } from "../store/rows.js";
import type { Integration } from "../store/sandbox-store.js";
import { applicationView, assessmentView, board, integrationsTable, jobsTable, page } from "./ats-page.render.js";

/** Enough for a demo and bounded for an integration of 100,000 applications. */
const JOBS_SHOWN = 50;
const APPLICATIONS_SHOWN = 200;

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
const AppParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }), app_id: Type.String({ minLength: 1, maxLength: 255 }) });
const JobQuery = Type.Object({ job: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) });

const applicationsOf = (i: Integration, jobId: string): ApplicationRow[] =>
  i.data.applications.page({
    cursor: undefined,
    pageSize: APPLICATIONS_SHOWN,
    includeDeleted: false,
    index: { name: "job", values: [jobId] },
    fingerprint: `ats-page:${jobId}`,
  }).rows;

const stagesOf = (i: Integration, job: JobRow): StageRow[] =>
  job.stageIds.map((id) => i.data.stages.get(id)).filter((s): s is StageRow => s !== undefined);

function jobPage(i: Integration, jobId: string): string {
  const job = i.data.jobs.get(jobId);
  if (!job || job.deletedAt !== null) throw recordNotFound("job", jobId);
  const byStage = new Map<string, ApplicationRow[]>();
  for (const a of applicationsOf(i, job.id)) byStage.set(a.stageId, [...(byStage.get(a.stageId) ?? []), a]);
  return page(`${i.endUser.organization_name}: ${job.name}`, board(i, job, stagesOf(i, job), byStage));
}

function integrationPage(i: Integration): string {
  const title = `${i.endUser.organization_name} (${i.tool.label})`;
  if (i.category === "ASSESSMENT") {
    const applications = [...i.data.applications.values()].filter((a) => a.deletedAt === null).slice(0, APPLICATIONS_SHOWN);
    return page(title, assessmentView(i, i.assessment.packages, applications, [...i.assessment.orders.values()]));
  }
  const jobs = [];
  for (const job of i.data.jobs.values()) {
    if (job.deletedAt !== null) continue;
    jobs.push({ job, applications: applicationsOf(i, job.id).length });
    if (jobs.length === JOBS_SHOWN) break;
  }
  return page(title, jobsTable(i, jobs));
}

export function registerAtsPageRoutes(app: App, ctx: SandboxContext): void {
  const html = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" };

  app.get("/sandbox/ats", { schema: { description: "The ATS page: every integration of the sandbox." } }, async (_request, reply) =>
    reply.headers(html).send(page("Integrations", integrationsTable([...ctx.store.integrations.values()]))),
  );

  app.get(
    "/sandbox/ats/:id",
    {
      schema: {
        description: "The ATS page of one integration: its jobs, one job's pipeline, or its assessment orders.",
        params: IdParams,
        querystring: JobQuery,
      },
    },
    async (request, reply) => {
      const i = findIntegration(ctx, request.params.id);
      return reply.headers(html).send(request.query.job ? jobPage(i, request.query.job) : integrationPage(i));
    },
  );

  app.get(
    "/sandbox/ats/:id/applications/:app_id",
    { schema: { description: "The ATS page of one application: stage, notes, result links and assessment orders.", params: AppParams } },
    async (request, reply) => {
      const i = findIntegration(ctx, request.params.id);
      const a = i.data.applications.get(request.params.app_id);
      if (!a || a.deletedAt !== null) throw recordNotFound("application", request.params.app_id);
      const job = i.data.jobs.get(a.jobId);
      const orders = [...i.assessment.orders.values()].filter((o) => o.applicationId === a.id);
      const name = i.data.candidates.get(a.candidateId);
      const title = `${name ? `${name.firstName} ${name.lastName}` : a.id}${job ? ` for ${job.name}` : ""}`;
      return reply.headers(html).send(page(title, applicationView(i, a, job ? stagesOf(i, job) : [], orders)));
    },
  );
}
