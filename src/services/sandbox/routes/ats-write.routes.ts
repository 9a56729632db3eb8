/**
 * ATS actions (reference §2b): writes and the live attachment read. Each answers `warnings` and
 * is concurrency-limited per integration; each write really changes the data and announces it
 * with a data-changed webhook.
 */
import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import type { App } from "../../../shared/http/create-app.js";
import {
  type AtsModelName,
  AttachmentSchema,
  type CreateApplicationBody,
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
import type { ApplicationRow, JobRow } from "../store/rows.js";

const AppParams = Type.Object({ application_id: Type.String({ minLength: 1 }) });
const CandidateParams = Type.Object({ candidate_id: Type.String({ minLength: 1 }) });
const JobParams = Type.Object({ job_id: Type.String({ minLength: 1 }) });
const action = { upstream: { xi: true, action: true } };

type Warning = { message: string };

/** What a write changed: the models its data-changed webhook names (none: nothing changed), and what it answers besides success. */
type Changed = { models: AtsModelName[]; warnings?: Warning[]; data?: unknown };

/**
 * The steps every write shares: find the request's integration and the live record the path names,
 * change it, announce the change (a data-changed webhook on the models it touched) and answer
 * success with the write's warnings.
 */
function write<R>(ctx: SandboxContext, request: FastifyRequest, find: (data: Dataset) => R, change: (record: R, data: Dataset) => Changed) {
  const integration = integrationOf(request);
  const { models, warnings = [], data = {} } = change(find(integration.data), integration.data);
  if (models.length > 0) announceChange(ctx, integration, models);
  return { status: "success", data, warnings };
}

/** `row`, unless it does not exist or is deleted (404, as the upstream answers). */
function liveRow<Row extends { deletedAt: number | null }>(row: Row | undefined, kind: string, id: string): Row {
  if (!row || row.deletedAt !== null) throw recordNotFound(kind, id);
  return row;
}
const liveApplication = (id: string) => (data: Dataset) => liveRow(data.applications.get(id), "application", id);
const liveCandidate = (id: string) => (data: Dataset) => liveRow(data.candidates.get(id), "candidate", id);
const liveJob = (id: string) => (data: Dataset) => liveRow(data.jobs.get(id), "job", id);

/** What a change to one application (its stage, a note, a result link) announces. */
const ON_APPLICATION: AtsModelName[] = ["ats_applications"];

function moveStage(application: ApplicationRow, data: Dataset, stageId: string): Changed {
  const job = data.jobs.get(application.jobId)!;
  // Only the job's own stages are valid targets, as in the upstream.
  const stage = data.stageOfJob(job, stageId);
  if (!stage) throw inputInvalid(`Stage ${JSON.stringify(stageId)} not found among the stages of job ${job.id}.`);
  data.moveToStage(application, stage);
  return { models: ON_APPLICATION };
}

/** The attachments of a new application, as stored; `data_url` is not fetched (a warning says so). */
function attachmentsOfNew(body: CreateApplicationBody, warnings: Warning[]) {
  return (body.attachments ?? []).map((a) => {
    if (!a.data && a.data_url) warnings.push({ message: `Attachment ${a.name}: data_url was not fetched by the sandbox; stored empty.` });
    return {
      id: newId(),
      remoteId: newId(),
      type: a.type,
      fileName: a.name,
      contentType: a.content_type ?? "application/octet-stream",
      content: Buffer.from(a.data ?? "", "base64"),
    };
  });
}

/** A new application (and its candidate) on an open job, in the stage named or the job's first. */
function applyToJob(job: JobRow, data: Dataset, body: CreateApplicationBody): Changed {
  if (job.status !== "OPEN")
    throw new SandboxError(400, "ATS.JOB_CLOSED", `Job ${job.id} is ${job.status.toLowerCase()} and takes no applications.`, {
      title: "Job closed",
    });
  const stage = body.stage_id === undefined ? data.stages.get(job.stageIds[0]!) : data.stageOfJob(job, body.stage_id);
  if (!stage) throw inputInvalid(`Stage ${JSON.stringify(body.stage_id)} not found among the stages of job ${job.id}.`);
  const warnings: Warning[] = [];
  const attachments = attachmentsOfNew(body, warnings);
  try {
    const created = createApplication(data, job, {
      candidate: { ...body.candidate, city: body.candidate.location?.city, country: body.candidate.location?.country },
      stage,
      source: body.source?.name,
      attachments,
    });
    return { models: ["ats_applications", "ats_candidates"], warnings, data: renderCreatedApplication(data, created) };
  } catch (err) {
    if (err instanceof WriteConflict)
      throw new SandboxError(409, "ATS.APPLICATION_ALREADY_EXISTS", err.message, { title: "Application already exists" });
    throw err;
  }
}

function registerApplicationWrites(app: App, ctx: SandboxContext): void {
  const now = () => new Date(ctx.clock()).toISOString();
  app.put(
    "/ats/applications/:application_id/stage",
    { schema: { params: AppParams, body: MoveStageBodySchema }, config: action },
    async (request) =>
      write(ctx, request, liveApplication(request.params.application_id), (application, data) =>
        moveStage(application, data, request.body.stage_id),
      ),
  );

  app.post(
    "/ats/applications/:application_id/result-links",
    { schema: { params: AppParams, body: ResultLinkBodySchema }, config: action },
    async (request) =>
      write(ctx, request, liveApplication(request.params.application_id), (application, data) => {
        const { label, url, details } = request.body;
        data.addResultLink(application.id, { id: newId(), label, url, details: details ?? null, created_at: now() });
        data.touchApplication(application);
        return { models: ON_APPLICATION };
      }),
  );

  app.post(
    "/ats/applications/:application_id/notes",
    { schema: { params: AppParams, body: NoteBodySchema }, config: action },
    async (request) =>
      write(ctx, request, liveApplication(request.params.application_id), (application, data) => {
        data.addNote(application.id, { id: newId(), content: request.body.content, content_type: "PLAIN_TEXT", created_at: now() });
        data.touchApplication(application);
        return { models: ON_APPLICATION };
      }),
  );

  app.post(
    "/ats/jobs/:job_id/applications",
    { schema: { params: JobParams, body: CreateApplicationBodySchema }, config: action },
    async (request) => write(ctx, request, liveJob(request.params.job_id), (job, data) => applyToJob(job, data, request.body)),
  );
}

function registerCandidateWrites(app: App, ctx: SandboxContext): void {
  app.post(
    "/ats/candidates/:candidate_id/tags",
    { schema: { params: CandidateParams, body: CandidateTagBodySchema }, config: action },
    async (request) =>
      write(ctx, request, liveCandidate(request.params.candidate_id), (candidate, data) => {
        data.addTag(candidate, data.findOrCreateTag(request.body.tag.name, newId));
        return { models: ["ats_candidates", "ats_tags", "ats_join_candidates_tags", "ats_applications"] };
      }),
  );

  // The upstream takes the tag to remove as a JSON body on DELETE.
  app.delete(
    "/ats/candidates/:candidate_id/tags",
    { schema: { params: CandidateParams, body: CandidateTagBodySchema }, config: action },
    async (request) =>
      write(ctx, request, liveCandidate(request.params.candidate_id), (candidate, data) => {
        const name = request.body.tag.name;
        if (data.removeTag(candidate, name)) return { models: ["ats_candidates", "ats_join_candidates_tags", "ats_applications"] };
        return { models: [], warnings: [{ message: `The candidate did not carry the tag ${JSON.stringify(name)}; nothing was removed.` }] };
      }),
  );
}

export function registerAtsWriteRoutes(app: App, ctx: SandboxContext): void {
  registerApplicationWrites(app, ctx);
  registerCandidateWrites(app, ctx);

  const attachmentsAnswer = { 200: UpstreamActionSuccessSchema(Type.Object({ results: Type.Array(AttachmentSchema) })) };
  app.get(
    "/ats/applications/:application_id/attachments",
    { schema: { params: AppParams, response: attachmentsAnswer }, config: action },
    async (request) => {
      const integration = integrationOf(request);
      const application = liveApplication(request.params.application_id)(integration.data);
      const base = `${originOf(ctx, request)}/sandbox/files/${encodeURIComponent(integration.id)}/${application.id}`;
      const results = attachmentsOf(integration.data, application).map((a) => renderAttachment(a, `${base}/${a.id}`));
      return { status: "success" as const, data: { results }, warnings: [] };
    },
  );
}
