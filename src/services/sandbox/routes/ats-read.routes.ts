/**
 * The ATS list endpoints (reference §2b): each is a collection, its filters and its renderer.
 * Lists read the sandbox's "synced copy" and are not concurrency-limited.
 */
import type { App } from "../../../shared/http/create-app.js";
import type { Static, TSchema } from "@sinclair/typebox";
import {
  ApplicationSchema,
  ApplicationStageSchema,
  CandidateSchema,
  InterviewSchema,
  JobSchema,
  ListQuerySchema,
  OfferSchema,
  RejectionReasonSchema,
  TagSchema,
  UserSchema,
} from "../../../contracts/upstream/index.js";
import type { SandboxContext } from "../context.js";
import { JsonCache, listEnvelope } from "../http/json-cache.js";
import { dateParam, pageRows, type FilterSpec, type RawQuery } from "../http/list-query.js";
import { integrationOf } from "../http/upstream-guards.js";
import { renderApplication, renderCandidate, renderJob } from "../render/ats-render.js";
import { renderInterview, renderOffer, renderRejectionReason, renderStage, renderTag, renderUser } from "../render/ats-reference-render.js";
import type { Collection } from "../store/collection.js";
import type { Dataset } from "../store/dataset.js";
import type { ApplicationRow, BaseRow, CandidateRow, InterviewRow, JobRow, OfferRow, StageRow, UserRow } from "../store/rows.js";

const by =
  <T>(get: (row: T) => string | null) =>
  (values: Set<string>) =>
  (row: T) => {
    const v = get(row);
    return v !== null && values.has(v);
  };
const byLower =
  <T>(get: (row: T) => string) =>
  (values: Set<string>) => {
    const lower = new Set([...values].map((v) => v.toLowerCase()));
    return (row: T) => lower.has(get(row).toLowerCase());
  };
const createdAfter = <T extends { createdAt: number }>(query: RawQuery, name = "remote_created_after") => {
  const after = dateParam(query[name], name);
  return after === undefined ? undefined : (row: T) => row.createdAt >= after;
};

function applicationFilters(data: Dataset, query: RawQuery): FilterSpec<ApplicationRow> {
  const after = createdAfter<ApplicationRow>(query);
  return {
    filters: {
      job_ids: { index: "job", match: by((a) => a.jobId) },
      candidate_ids: { index: "candidate", match: by((a) => a.candidateId) },
      outcomes: { match: by((a) => a.outcome) },
      outcome: { match: by((a) => a.outcome) },
      job_remote_ids: { match: by((a) => data.jobs.get(a.jobId)?.remoteId ?? null) },
      current_stage_ids: { match: by((a) => a.stageId) },
      rejection_reason_ids: { match: by((a) => a.rejectionReasonId) },
      ...(after ? { remote_created_after: { match: () => after } } : {}),
    },
    unsupported: ["custom_fields"],
  };
}

function jobFilters(query: RawQuery): FilterSpec<JobRow> {
  const after = createdAfter<JobRow>(query);
  const nameContains = typeof query["name_contains"] === "string" ? query["name_contains"].toLowerCase() : undefined;
  return {
    filters: {
      job_codes: { match: by((j) => j.jobCode) },
      statuses: { match: by((j) => j.status) },
      status: { match: by((j) => j.status) },
      job_status: { match: by((j) => j.status) },
      employment_types: { match: by((j) => j.employmentType) },
      employment_type: { match: by((j) => j.employmentType) },
      visibilities: { match: by((j) => j.visibility) },
      post_url: { match: by((j) => (j.visibility === "PUBLIC" ? `https://careers.example.com/jobs/${j.remoteId}` : null)) },
      ...(after ? { remote_created_after: { match: () => after } } : {}),
      ...(nameContains ? { name_contains: { match: () => (j: JobRow) => j.name.toLowerCase().includes(nameContains) } } : {}),
    },
    unsupported: ["department_ids", "office_ids", "custom_fields"],
  };
}

const candidateFilters = (data: Dataset): FilterSpec<CandidateRow> => ({
  filters: {
    email: { match: byLower((c) => c.email) },
    first_name: { match: byLower((c) => c.firstName) },
    last_name: { match: byLower((c) => c.lastName) },
    job_ids: { match: (values) => (c) => c.applicationIds.some((id) => values.has(data.applications.get(id)?.jobId ?? "")) },
  },
});

const interviewFilters: FilterSpec<InterviewRow> = {
  filters: {
    job_ids: { index: "job", match: by((i) => i.jobId) },
    application_ids: { index: "application", match: by((i) => i.applicationId) },
    stage_ids: { match: by((i) => i.stageId) },
    interviewer_ids: { match: (values) => (i) => i.userIds.some((u) => values.has(u)) },
  },
};

const offerFilters: FilterSpec<OfferRow> = {
  filters: {
    application_ids: { index: "application", match: by((o) => o.applicationId) },
    status: { match: by((o) => o.status) },
    statuses: { match: by((o) => o.status) },
  },
};

const userFilters: FilterSpec<UserRow> = {
  filters: { emails: { match: byLower((u) => u.email) }, email: { match: byLower((u) => u.email) } },
};
const stageFilters: FilterSpec<StageRow> = { filters: { job_ids: { index: "job", match: by((s) => s.jobId) } } };
const noFilters: FilterSpec<BaseRow> = { filters: {} };

const schema = { querystring: ListQuerySchema } as const;
const config = { upstream: { xi: true } };

/** Serialized records per dataset and list (see http/json-cache.ts); gone with the dataset. */
const caches = new WeakMap<Dataset, Map<string, unknown>>();
function cacheFor<T extends BaseRow, S extends TSchema>(
  data: Dataset,
  name: string,
  render: (row: T) => Static<S>,
  schema: S,
): JsonCache<T, S> {
  let byName = caches.get(data);
  if (!byName) {
    byName = new Map();
    caches.set(data, byName);
  }
  let cache = byName.get(name) as JsonCache<T, S> | undefined;
  if (!cache) {
    cache = new JsonCache<T, S>(render, schema);
    byName.set(name, cache);
  }
  return cache;
}

/** One list endpoint: its collection, filters and renderer, answered from the serialized-record cache. */
function listRoute<T extends BaseRow, S extends TSchema>(
  app: App,
  path: string,
  record: S,
  collection: (d: Dataset) => Collection<T>,
  filters: (d: Dataset, q: RawQuery) => FilterSpec<T>,
  render: (d: Dataset) => (row: T) => Static<S>,
): void {
  app.get(path, { schema, config }, async (request, reply) => {
    const data = integrationOf(request).data;
    const query = request.query as RawQuery;
    const page = pageRows(collection(data), query, filters(data, query));
    const cache = cacheFor(data, path, render(data), record);
    return reply.type("application/json; charset=utf-8").send(
      listEnvelope(
        page.next,
        page.rows.map((row) => cache.json(row)),
      ),
    );
  });
}

export function registerAtsReadRoutes(app: App, _ctx: SandboxContext): void {
  const list = <T extends BaseRow, S extends TSchema>(
    path: string,
    record: S,
    collection: (d: Dataset) => Collection<T>,
    filters: (d: Dataset, q: RawQuery) => FilterSpec<T>,
    render: (d: Dataset) => (row: T) => Static<S>,
  ) => listRoute(app, path, record, collection, filters, render);

  list(
    "/ats/applications",
    ApplicationSchema,
    (d) => d.applications,
    applicationFilters,
    (d) => (a) => renderApplication(d, a),
  );
  list(
    "/ats/candidates",
    CandidateSchema,
    (d) => d.candidates,
    (d) => candidateFilters(d),
    (d) => (c) => renderCandidate(d, c),
  );
  list(
    "/ats/jobs",
    JobSchema,
    (d) => d.jobs,
    (_d, q) => jobFilters(q),
    (d) => (j) => renderJob(d, j),
  );
  list(
    "/ats/application-stages",
    ApplicationStageSchema,
    (d) => d.stages,
    () => stageFilters,
    () => renderStage,
  );
  list(
    "/ats/tags",
    TagSchema,
    (d) => d.tags,
    () => noFilters,
    () => renderTag,
  );
  list(
    "/ats/users",
    UserSchema,
    (d) => d.users,
    () => userFilters,
    () => renderUser,
  );
  list(
    "/ats/offers",
    OfferSchema,
    (d) => d.offers,
    () => offerFilters,
    (d) => (o) => renderOffer(d, o),
  );
  list(
    "/ats/rejection-reasons",
    RejectionReasonSchema,
    (d) => d.rejectionReasons,
    () => noFilters,
    () => renderRejectionReason,
  );
  list(
    "/ats/interviews",
    InterviewSchema,
    (d) => d.interviews,
    () => interviewFilters,
    (d) => (i) => renderInterview(d, i),
  );
}
