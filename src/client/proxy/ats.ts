import type {
  ApplicationNote,
  ApplicationResultLink,
  ApplicationsQuery,
  ApplicationStagesQuery,
  ApplicationStageUpdate,
  AtsListQuery,
  CandidateTags,
  InterviewsQuery,
  JobApplicationCreate,
  JobsQuery,
  OffersQuery,
  UsersQuery,
} from "../../contracts/proxy/ats.js";
import type { Application, CreatedApplication } from "../../contracts/upstream/ats-application-records.js";
import type { Job } from "../../contracts/upstream/ats-records.js";
import type {
  ApplicationStage,
  Attachment,
  Interview,
  Offer,
  RejectionReason,
  Tag,
  User,
} from "../../contracts/upstream/ats-reference-records.js";
import type { UpstreamActionSuccess } from "../../contracts/upstream/envelopes.js";
import type { RequestOptions } from "../core/http-client.js";
import { path } from "../core/url.js";
import type { ProxyContext } from "./context.js";
import { ListResource } from "./list-resource.js";

type Empty = Record<string, never>;

/** Sends an ATS write; `integration_id` is always a query parameter. */
function write<T>(
  ctx: ProxyContext,
  method: "POST" | "PUT" | "DELETE",
  route: string,
  integrationId: string,
  body: unknown,
  options: RequestOptions | undefined,
): Promise<UpstreamActionSuccess<T>> {
  return ctx.http.request({ method, baseUrl: ctx.baseUrl, path: route, query: { integration_id: integrationId }, body }, options);
}

/**
 * Applications of an integration's ATS.
 * @example
 * for await (const application of hb.ats.applications.iterate({ integration_id, page_size: 250 })) {
 *   console.log(application.id, application.current_stage?.name);
 * }
 */
export class ApplicationsResource extends ListResource<ApplicationsQuery, Application> {
  constructor(ctx: ProxyContext) {
    super(ctx, "/ats/applications");
  }

  /** Moves the application to another stage of its job. */
  moveStage(integrationId: string, applicationId: string, body: ApplicationStageUpdate, options?: RequestOptions) {
    return write<Empty>(this.ctx, "PUT", path`/ats/applications/${applicationId}/stage`, integrationId, body, options);
  }

  /** Attaches a result link (for example the interview report) to the application. */
  addResultLink(integrationId: string, applicationId: string, body: ApplicationResultLink, options?: RequestOptions) {
    return write<Empty>(this.ctx, "POST", path`/ats/applications/${applicationId}/result-links`, integrationId, body, options);
  }

  /** Adds a plain-text note to the application. */
  addNote(integrationId: string, applicationId: string, body: ApplicationNote, options?: RequestOptions) {
    return write<Empty>(this.ctx, "POST", path`/ats/applications/${applicationId}/notes`, integrationId, body, options);
  }

  /** The application's attachments (CV, cover letter …); read live from the ATS, not paginated. */
  attachments(
    integrationId: string,
    applicationId: string,
    options?: RequestOptions,
  ): Promise<UpstreamActionSuccess<{ results: Attachment[] }>> {
    return this.ctx.http.request(
      {
        method: "GET",
        baseUrl: this.ctx.baseUrl,
        path: path`/ats/applications/${applicationId}/attachments`,
        query: { integration_id: integrationId },
      },
      options,
    );
  }
}

/** Tags on ATS candidates (the tag is found or created by name). */
export class CandidateTagsResource {
  constructor(private readonly ctx: ProxyContext) {}

  addTag(integrationId: string, candidateId: string, body: CandidateTags, options?: RequestOptions) {
    return write<Empty>(this.ctx, "POST", path`/ats/candidates/${candidateId}/tags`, integrationId, body, options);
  }

  /** Removes a tag; the upstream takes the tag in a JSON body on DELETE. */
  removeTag(integrationId: string, candidateId: string, body: CandidateTags, options?: RequestOptions) {
    return write<Empty>(this.ctx, "DELETE", path`/ats/candidates/${candidateId}/tags`, integrationId, body, options);
  }
}

/** Jobs, and creating an application (with its candidate) for a job. */
export class JobsResource extends ListResource<JobsQuery, Job> {
  constructor(ctx: ProxyContext) {
    super(ctx, "/ats/jobs");
  }

  createApplication(integrationId: string, jobId: string, body: JobApplicationCreate, options?: RequestOptions) {
    return write<CreatedApplication>(this.ctx, "POST", path`/ats/jobs/${jobId}/applications`, integrationId, body, options);
  }
}

/** The unified ATS operations of the proxy, one resource per record kind. */
export class AtsResource {
  readonly applications: ApplicationsResource;
  readonly candidates: CandidateTagsResource;
  readonly jobs: JobsResource;
  readonly tags: ListResource<AtsListQuery, Tag>;
  /** Application stages (deprecated upstream in favour of each job's `stages`). */
  readonly stages: ListResource<ApplicationStagesQuery, ApplicationStage>;
  readonly users: ListResource<UsersQuery, User>;
  readonly offers: ListResource<OffersQuery, Offer>;
  readonly rejectionReasons: ListResource<AtsListQuery, RejectionReason>;
  readonly interviews: ListResource<InterviewsQuery, Interview>;

  constructor(ctx: ProxyContext) {
    this.applications = new ApplicationsResource(ctx);
    this.candidates = new CandidateTagsResource(ctx);
    this.jobs = new JobsResource(ctx);
    this.tags = new ListResource(ctx, "/ats/tags");
    this.stages = new ListResource(ctx, "/ats/application-stages");
    this.users = new ListResource(ctx, "/ats/users");
    this.offers = new ListResource(ctx, "/ats/offers");
    this.rejectionReasons = new ListResource(ctx, "/ats/rejection-reasons");
    this.interviews = new ListResource(ctx, "/ats/interviews");
  }
}
