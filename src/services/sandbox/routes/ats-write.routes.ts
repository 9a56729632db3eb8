/**
 * ATS actions (reference §2b): writes and the live attachment read. Each answers `warnings` and
 * is concurrency-limited per integration; each write really changes the data and announces it
 * with a data-changed webhook.
 */
import { Type } from "@sinclair/typebox";
import type { App } from "../../../shared/http/create-app.js";
import {
  AttachmentSchema,
  CandidateTagBodySchema,
  CreateApplicationBodySchema,
  MoveStageBodySchema,
  NoteBodySchema,
  ResultLinkBodySchema,
  UpstreamActionSuccessSchema,
} from "../../../contracts/upstream/index.js";
import { newId } from "../data/random.js";
import { announceChange, originOf, type SandboxContext } from "../context.js";
import { SandboxError, inputInvalid, recordNotFound } from "../errors.js";
import { integrationOf } from "../http/upstream-guards.js";
import { attachmentsOf, renderAttachment } from "../render/attachments.js";
import { renderCreatedApplication } from "../render/ats-render.js";
import { WriteConflict, createApplication } from "../store/ats-writes.js";
import type { Dataset } from "../store/dataset.js";

const AppParams = Type.Object({ application_id: Type.String({ minLength: 1 }) });
const CandidateParams = Type.Object({ candidate_id: Type.String({ minLength: 1 }) });
const JobParams = Type.Object({ job_id: Type.String({ minLength: 1 }) });
const action = { upstream: { xi: true, action: true } };

const done = (warnings: { message: string }[] = []) => ({ status: "success", data: {}, warnings });

function liveApplication(data: Dataset, id: string) {
  const app = data.applications.get(id);
  if (!app || app.deletedAt !== null) throw recordNotFound("application", id);
  return app;
}

export function registerAtsWriteRoutes(app: App, ctx: SandboxContext): void {
  app.put(
    "/ats/applications/:application_id/stage",
    { schema: { params: AppParams, body: MoveStageBodySchema }, config: action },
    async (request) => {
      const integration = integrationOf(request);
      const application = liveApplication(integration.data, request.params.application_id);
      const job = integration.data.jobs.get(application.jobId)!;
      // Only the job's own stages are valid targets, as in the upstream.
      const stage = integration.data.stageOfJob(job, request.body.stage_id);
      if (!stage) throw inputInvalid(`Stage ${JSON.stringify(request.body.stage_id)} not found among the stages of job ${job.id}.`);
      integration.data.moveToStage(application, stage);
      announceChange(ctx, integration, ["ats_applications"]);
      return done();
    },
  );

  app.post(
    "/ats/applications/:application_id/result-links",
    { schema: { params: AppParams, body: ResultLinkBodySchema }, config: action },
    async (request) => {
      const integration = integrationOf(request);
      const application = liveApplication(integration.data, request.params.application_id);
      const { label, url, details } = request.body;
      integration.data.addResultLink(application.id, {
        id: newId(),
        label,
        url,
        details: details ?? null,
        created_at: new Date(ctx.clock()).toISOString(),
      });
      integration.data.touchApplication(application);
      announceChange(ctx, integration, ["ats_applications"]);
      return done();
    },
  );

  app.post(
    "/ats/applications/:application_id/notes",
    { schema: { params: AppParams, body: NoteBodySchema }, config: action },
    async (request) => {
      const integration = integrationOf(request);
      const application = liveApplication(integration.data, request.params.application_id);
      integration.data.addNote(application.id, {
        id: newId(),
        content: request.body.content,
        content_type: "PLAIN_TEXT",
        created_at: new Date(ctx.clock()).toISOString(),
      });
      integration.data.touchApplication(application);
      announceChange(ctx, integration, ["ats_applications"]);
      return done();
    },
  );

  const attachmentsAnswer = { 200: UpstreamActionSuccessSchema(Type.Object({ results: Type.Array(AttachmentSchema) })) };
  app.get(
    "/ats/applications/:application_id/attachments",
    { schema: { params: AppParams, response: attachmentsAnswer }, config: action },
    async (request) => {
      const integration = integrationOf(request);
      const application = liveApplication(integration.data, request.params.application_id);
      const base = `${originOf(ctx, request)}/sandbox/files/${encodeURIComponent(integration.id)}/${application.id}`;
      const results = attachmentsOf(integration.data, application).map((a) => renderAttachment(a, `${base}/${a.id}`));
      return { status: "success" as const, data: { results }, warnings: [] };
    },
  );

  app.post(
    "/ats/candidates/:candidate_id/tags",
    { schema: { params: CandidateParams, body: CandidateTagBodySchema }, config: action },
    async (request) => {
      const integration = integrationOf(request);
      const candidate = integration.data.candidates.get(request.params.candidate_id);
      if (!candidate || candidate.deletedAt !== null) throw recordNotFound("candidate", request.params.candidate_id);
      const tag = integration.data.findOrCreateTag(request.body.tag.name, newId);
      integration.data.addTag(candidate, tag);
      announceChange(ctx, integration, ["ats_candidates", "ats_tags", "ats_join_candidates_tags", "ats_applications"]);
      return done();
    },
  );

  // The upstream takes the tag to remove as a JSON body on DELETE.
  app.delete(
    "/ats/candidates/:candidate_id/tags",
    { schema: { params: CandidateParams, body: CandidateTagBodySchema }, config: action },
    async (request) => {
      const integration = integrationOf(request);
      const candidate = integration.data.candidates.get(request.params.candidate_id);
      if (!candidate || candidate.deletedAt !== null) throw recordNotFound("candidate", request.params.candidate_id);
      if (!integration.data.removeTag(candidate, request.body.tag.name)) {
        return done([{ message: `The candidate did not carry the tag ${JSON.stringify(request.body.tag.name)}; nothing was removed.` }]);
      }
      announceChange(ctx, integration, ["ats_candidates", "ats_join_candidates_tags", "ats_applications"]);
      return done();
    },
  );

  app.post(
    "/ats/jobs/:job_id/applications",
    { schema: { params: JobParams, body: CreateApplicationBodySchema }, config: action },
    async (request) => {
      const integration = integrationOf(request);
      const data = integration.data;
      const job = data.jobs.get(request.params.job_id);
      if (!job || job.deletedAt !== null) throw recordNotFound("job", request.params.job_id);
      if (job.status !== "OPEN")
        throw new SandboxError(400, "ATS.JOB_CLOSED", `Job ${job.id} is ${job.status.toLowerCase()} and takes no applications.`, {
          title: "Job closed",
        });
      const body = request.body;
      const stage = body.stage_id === undefined ? data.stages.get(job.stageIds[0]!) : data.stageOfJob(job, body.stage_id);
      if (!stage) throw inputInvalid(`Stage ${JSON.stringify(body.stage_id)} not found among the stages of job ${job.id}.`);
      const warnings: { message: string }[] = [];
      const attachments = (body.attachments ?? []).map((a) => {
        if (!a.data && a.data_url)
          warnings.push({ message: `Attachment ${a.name}: data_url was not fetched by the sandbox; stored empty.` });
        return {
          id: newId(),
          remoteId: newId(),
          type: a.type,
          fileName: a.name,
          contentType: a.content_type ?? "application/octet-stream",
          content: Buffer.from(a.data ?? "", "base64"),
        };
      });
      try {
        const created = createApplication(data, job, {
          candidate: { ...body.candidate, city: body.candidate.location?.city, country: body.candidate.location?.country },
          stage,
          source: body.source?.name,
          attachments,
        });
        announceChange(ctx, integration, ["ats_applications", "ats_candidates"]);
        return { status: "success", data: renderCreatedApplication(data, created), warnings };
      } catch (err) {
        if (err instanceof WriteConflict)
          throw new SandboxError(409, "ATS.APPLICATION_ALREADY_EXISTS", err.message, { title: "Application already exists" });
        throw err;
      }
    },
  );
}
