/**
 * Admin: act as the ATS would — add a job, add an application, move an application — and read an
 * application with what the unified read model does not show (notes, result links), so tests can
 * check write-backs; list an integration's live applications. Each write sends the matching data-changed webhook.
 */
import type { App } from "../../../shared/http/create-app.js";
import { announceChange, originOf, type SandboxContext } from "../context.js";
import { SandboxError, inputInvalid, recordNotFound } from "../errors.js";
import { attachmentsOf, renderAttachment } from "../render/attachments.js";
import { renderApplication, renderJob } from "../render/ats-render.js";
import { WriteConflict, createApplication, createJob, type NewJob } from "../store/ats-writes.js";
import type { Dataset } from "../store/dataset.js";
import type { JobRow, StageRow } from "../store/rows.js";
import { findIntegration } from "./admin-integrations.routes.js";
import {
  AdminApplicationSchema,
  AdminJobSchema,
  AdminMoveSchema,
  ApplicationListQuery,
  ApplicationParams,
  IntegrationParams,
} from "./admin.schemas.js";

/** A job's stage by id, or by name (case-insensitive) for demos that think in names. */
function stageOf(data: Dataset, job: JobRow, pick: { stage_id?: string | undefined; stage_name?: string | undefined }): StageRow {
  const stage = pick.stage_id
    ? data.stageOfJob(job, pick.stage_id)
    : job.stageIds.map((id) => data.stages.get(id)!).find((s) => s.name.toLowerCase() === pick.stage_name?.toLowerCase());
  if (!stage)
    throw inputInvalid(
      `No stage ${JSON.stringify(pick.stage_id ?? pick.stage_name)} on job ${job.id}; its stages: ${job.stageIds.map((id) => data.stages.get(id)!.name).join(", ")}`,
    );
  return stage;
}

export function registerAdminDataRoutes(app: App, ctx: SandboxContext): void {
  app.post("/sandbox/integrations/:id/jobs", { schema: { params: IntegrationParams, body: AdminJobSchema } }, async (request, reply) => {
    const integration = findIntegration(ctx, request.params.id);
    const job = createJob(integration.data, request.body as NewJob);
    announceChange(ctx, integration, ["ats_jobs", "ats_application_stages", "ats_join_jobs_application_stages"]);
    return reply.status(201).send(renderJob(integration.data, job));
  });

  app.post(
    "/sandbox/integrations/:id/applications",
    { schema: { params: IntegrationParams, body: AdminApplicationSchema } },
    async (request, reply) => {
      const integration = findIntegration(ctx, request.params.id);
      const data = integration.data;
      const body = request.body;
      const job = data.jobs.get(body.job_id);
      if (!job || job.deletedAt !== null) throw recordNotFound("job", body.job_id);
      const stage = body.stage_id || body.stage_name ? stageOf(data, job, body) : data.stages.get(job.stageIds[0]!)!;
      try {
        const created = createApplication(data, job, { candidate: body.candidate, stage, source: body.source });
        announceChange(ctx, integration, ["ats_applications", "ats_candidates"]);
        return reply.status(201).send(renderApplication(data, created));
      } catch (err) {
        if (err instanceof WriteConflict) throw new SandboxError(409, "ATS.APPLICATION_ALREADY_EXISTS", err.message);
        throw err;
      }
    },
  );

  app.put(
    "/sandbox/integrations/:id/applications/:app_id/stage",
    { schema: { params: ApplicationParams, body: AdminMoveSchema } },
    async (request) => {
      const integration = findIntegration(ctx, request.params.id);
      const data = integration.data;
      const application = data.applications.get(request.params.app_id);
      if (!application) throw recordNotFound("application", request.params.app_id);
      data.moveToStage(application, stageOf(data, data.jobs.get(application.jobId)!, request.body));
      announceChange(ctx, integration, ["ats_applications"]);
      return renderApplication(data, application);
    },
  );

  // An ASSESSMENT integration's /v1/ats/* are closed (as upstream): this is how to find an
  // application to place an assessment order for.
  app.get(
    "/sandbox/integrations/:id/applications",
    { schema: { params: IntegrationParams, querystring: ApplicationListQuery } },
    async (request) => {
      const { data } = findIntegration(ctx, request.params.id);
      const { limit = 20, offset = 0 } = request.query;
      const applications = [];
      let skipped = 0;
      // Walks only as far as the page reaches (the demo integration may hold 100,000s).
      for (const a of data.applications.values()) {
        if (a.deletedAt !== null) continue;
        if (skipped++ < offset) continue;
        applications.push(renderApplication(data, a));
        if (applications.length === limit) break;
      }
      return { applications };
    },
  );

  app.get("/sandbox/integrations/:id/applications/:app_id", { schema: { params: ApplicationParams } }, async (request) => {
    const integration = findIntegration(ctx, request.params.id);
    const data = integration.data;
    const application = data.applications.get(request.params.app_id);
    if (!application) throw recordNotFound("application", request.params.app_id);
    const base = `${originOf(ctx, request)}/sandbox/files/${encodeURIComponent(integration.id)}/${application.id}`;
    return {
      ...renderApplication(data, application),
      notes: data.notes.get(application.id) ?? [],
      result_links: data.resultLinks.get(application.id) ?? [],
      attachments: attachmentsOf(data, application).map((a) => renderAttachment(a, `${base}/${a.id}`)),
    };
  });
}
