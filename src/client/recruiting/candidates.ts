import type {
  Candidate,
  CandidateBulkUpdate,
  CandidateCreate,
  CandidateList,
  CandidateUpdate,
} from "../../contracts/recruiting/candidates.js";
import type { CandidateExport } from "../../contracts/recruiting/candidate-export.js";
import type { CandidateErasure } from "../../contracts/recruiting/erasure.js";
import type { Interview, InterviewCorrection, InterviewUpdate } from "../../contracts/recruiting/interviews.js";
import { newIdempotencyKey, type RequestOptions } from "../core/http-client.js";
import { path } from "../core/url.js";
import type { RecruitingContext } from "./context.js";

// The candidate paths use the plural `positions` segment and end with a slash, as the spec has them.

/** Candidates of a position. */
export class CandidatesResource {
  constructor(private readonly ctx: RecruitingContext) {}

  /** Every candidate of the position, oldest first. */
  async list(positionId: string, options?: RequestOptions): Promise<CandidateList> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request({ method: "GET", baseUrl: this.ctx.baseUrl, path: path`/org/${org}/positions/${positionId}/` }, options);
  }

  /**
   * Adds a candidate (and their interview record). One email appears once per position: a duplicate
   * is a ConflictError. Sent with an `Idempotency-Key` (a new one per call, or
   * `options.idempotencyKey`), so a retry after a lost answer creates nothing twice.
   * @example
   * const candidate = await hb.candidates.create(position.id, {
   *   name: "Ada Lovelace", email: "ada@example.com", phone: "+44 20 7946 0000", language: "en",
   * });
   */
  async create(positionId: string, body: CandidateCreate, options?: RequestOptions): Promise<Candidate> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      {
        method: "POST",
        baseUrl: this.ctx.baseUrl,
        path: path`/org/${org}/positions/${positionId}/`,
        body,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
      },
      options,
    );
  }

  async get(positionId: string, candidateId: string, options?: RequestOptions): Promise<Candidate> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      {
        method: "GET",
        baseUrl: this.ctx.baseUrl,
        path: path`/org/${org}/positions/${positionId}/candidates/${candidateId}/`,
      },
      options,
    );
  }

  /** Changes the fields sent, and only those. */
  async update(positionId: string, candidateId: string, body: CandidateUpdate, options?: RequestOptions): Promise<Candidate> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      {
        method: "PUT",
        baseUrl: this.ctx.baseUrl,
        path: path`/org/${org}/positions/${positionId}/candidates/${candidateId}/`,
        body,
      },
      options,
    );
  }

  /**
   * Everything Hirebridge holds about the candidate, as one JSON document, for a data subject access
   * request: the candidate, their interview, its gradings and corrections, the results written back to
   * the ATS, the events naming them (inbound, and outbound with their delivery attempts), their
   * assessment order and the audit log's entries about them. Recorded in the audit log as
   * `candidate.exported`. The ATS holds its own copy of the application: export it there.
   * @example
   * const doc = await hb.candidates.export(position.id, candidate.id);
   * await writeFile("candidate.json", JSON.stringify(doc, null, 2));
   */
  async export(positionId: string, candidateId: string, options?: RequestOptions): Promise<CandidateExport> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      {
        method: "GET",
        baseUrl: this.ctx.baseUrl,
        path: path`/org/${org}/positions/${positionId}/candidates/${candidateId}/export`,
      },
      options,
    );
  }

  /**
   * Erases the candidate: their personal data goes from every place Hirebridge keeps it (a
   * tombstone of ids, the time, who and `reason` stays), the sync does not re-create them, and a
   * `candidate.erased` event goes to the organisation's webhook endpoints. Answers what was erased
   * by kind and count; a second call is a NotFoundError. The ATS keeps its own copy: erase it there.
   * Not retried (a retry after a lost answer would be a NotFoundError).
   * @example
   * const { erased } = await hb.candidates.erase(position.id, candidate.id, { reason: "data subject request" });
   */
  async erase(
    positionId: string,
    candidateId: string,
    opts: { reason?: string } = {},
    options?: RequestOptions,
  ): Promise<CandidateErasure> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      {
        method: "DELETE",
        baseUrl: this.ctx.baseUrl,
        path: path`/org/${org}/positions/${positionId}/candidates/${candidateId}/`,
        query: opts.reason === undefined ? undefined : { reason: opts.reason },
        idempotent: false,
      },
      options,
    );
  }

  /** Lifts an erasure's suppression (its `suppression_id`): the sync may create the candidate again from the ATS. */
  async liftErasureSuppression(suppressionId: string, options?: RequestOptions): Promise<{ lifted: true }> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      { method: "DELETE", baseUrl: this.ctx.baseUrl, path: path`/org/${org}/erasure-suppressions/${suppressionId}/` },
      options,
    );
  }

  /**
   * Updates many candidates of the position in one transaction: all change, or none do.
   * @example
   * await hb.candidates.bulkUpdate(position.id, [{ id: a.id, short_listed: true }, { id: b.id, state: "rejected" }]);
   */
  async bulkUpdate(positionId: string, items: CandidateBulkUpdate, options?: RequestOptions): Promise<CandidateList> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      { method: "PUT", baseUrl: this.ctx.baseUrl, path: path`/org/${org}/positions/${positionId}/`, body: items },
      options,
    );
  }
}

/** The interview record of a candidate. */
export class InterviewsResource {
  constructor(private readonly ctx: RecruitingContext) {}

  async get(positionId: string, candidateId: string, options?: RequestOptions): Promise<Interview> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      {
        method: "GET",
        baseUrl: this.ctx.baseUrl,
        path: path`/org/${org}/positions/${positionId}/candidates/${candidateId}/interview/`,
      },
      options,
    );
  }

  /**
   * Reports interview progress or results (the interview runner's write path). Status changes
   * follow not_started → completed | errored | cancelled, completed → graded, errored → not_started;
   * anything else is a ConflictError.
   * @example
   * await hb.interviews.update(position.id, candidate.id, { status: "completed" });
   * await hb.interviews.update(position.id, candidate.id, { status: "graded", score: 82, feedback: "Clear and structured." });
   */
  async update(positionId: string, candidateId: string, body: InterviewUpdate, options?: RequestOptions): Promise<Interview> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      {
        method: "PUT",
        baseUrl: this.ctx.baseUrl,
        path: path`/org/${org}/positions/${positionId}/candidates/${candidateId}/interview/`,
        body,
      },
      options,
    );
  }

  /**
   * Corrects a graded result (a graded interview is final: `update` answers a ConflictError): the
   * score and feedback change, and the ATS is told with a corrective write-back carrying `reason`.
   * @example
   * await hb.interviews.correct(position.id, candidate.id, { score: 50, reason: "Scored against the wrong rubric" });
   */
  async correct(positionId: string, candidateId: string, body: InterviewCorrection, options?: RequestOptions): Promise<Interview> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      {
        method: "POST",
        baseUrl: this.ctx.baseUrl,
        path: path`/org/${org}/positions/${positionId}/candidates/${candidateId}/interview/correction`,
        body,
      },
      options,
    );
  }
}
