/**
 * Admin: a job's stage renamed or removed, as an ATS's admin would do it, so tests can check
 * what Hirebridge keeps (the names its history recorded) and what it reports (a stage field that
 * no longer names a stage of the job). Each change sends data-changed for the jobs and stages.
 */
import { Type } from "@sinclair/typebox";
import type { App } from "../../../shared/http/create-app.js";
import { announceChange, type SandboxContext } from "../context.js";
import { recordNotFound } from "../errors.js";
import { renderJob } from "../render/ats-render.js";
import { findIntegration } from "./admin-integrations.routes.js";

const StageParams = Type.Object({ id: Type.String(), job_id: Type.String(), stage_id: Type.String() });
const StageRename = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
const STAGE_MODELS = ["ats_jobs", "ats_application_stages", "ats_join_jobs_application_stages"] as const;

export function registerAdminStageRoutes(app: App, ctx: SandboxContext): void {
  /** The job and its stage named by the path, or 404. */
  const find = (params: { id: string; job_id: string; stage_id: string }) => {
    const integration = findIntegration(ctx, params.id);
    const job = integration.data.jobs.get(params.job_id);
    if (!job) throw recordNotFound("job", params.job_id);
    const stage = integration.data.stageOfJob(job, params.stage_id);
    if (!stage) throw recordNotFound("stage", params.stage_id);
    return { integration, job, stage };
  };

  app.patch(
    "/sandbox/integrations/:id/jobs/:job_id/stages/:stage_id",
    { schema: { params: StageParams, body: StageRename } },
    async (request) => {
      const { integration, job, stage } = find(request.params);
      const at = integration.data.tick();
      stage.name = request.body.name;
      integration.data.stages.touch(stage, at);
      job.updatedAt = at;
      integration.data.jobs.touch(job, at);
      announceChange(ctx, integration, [...STAGE_MODELS]);
      return renderJob(integration.data, job);
    },
  );

  app.delete("/sandbox/integrations/:id/jobs/:job_id/stages/:stage_id", { schema: { params: StageParams } }, async (request) => {
    const { integration, job, stage } = find(request.params);
    const at = integration.data.tick();
    job.stageIds = job.stageIds.filter((id) => id !== stage.id);
    job.updatedAt = at;
    integration.data.jobs.touch(job, at);
    announceChange(ctx, integration, [...STAGE_MODELS]);
    return renderJob(integration.data, job);
  });
}
