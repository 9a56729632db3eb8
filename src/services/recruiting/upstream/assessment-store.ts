import { randomBytes } from "node:crypto";
import { and, asc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { Queryable, Tx } from "../../../shared/db/database.js";
import { NO_EVENTS_OUT } from "../../../shared/no-events-out.js";
import type { AssessmentRecruiting, InterviewPackage, OrderIntake, OrderIntakeResult } from "../../../shared/ports/assessment-orders.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import { cut } from "../../../shared/text.js";
import { candidates } from "../candidates/candidates.tables.js";
import { interviews } from "../interviews/interviews.tables.js";
import { createPositionIn } from "../positions/positions.service.js";
import { positions, type PositionRow } from "../positions/positions.tables.js";
import { upsertPositionedCandidates } from "./upstream-candidates.repository.js";

const PACKAGE_COLUMNS = { id: positions.id, name: positions.name, roleDescription: positions.roleDescription };

/** The organisation's position `id` when it is in state `template`. */
async function findTemplate(q: Queryable, orgId: string, id: string): Promise<PositionRow | null> {
  const [row] = await q
    .select()
    .from(positions)
    .where(and(eq(positions.organizationId, orgId), eq(positions.id, id), eq(positions.state, "template")));
  return row ?? null;
}

/** The language a new candidate gets: the package's first accepted language, else English. */
const languageOf = (template: PositionRow) => template.acceptedLanguages[0] ?? "en";

/** The organisation's position linked to the job for the integration, if any. */
async function linkedPosition(q: Queryable, order: OrderIntake, jobId: string): Promise<string | null> {
  const [found] = await q
    .select({ id: positions.id })
    .from(positions)
    .where(
      and(
        eq(positions.organizationId, order.orgId),
        eq(positions.upstreamIntegrationId, order.integrationId),
        eq(positions.upstreamJobIdId, jobId),
      ),
    );
  return found?.id ?? null;
}

/**
 * The order's position: the one linked to the order's job for the integration, else a new one
 * made from the package (its agent, minimum score, role description, languages and stage
 * mapping). The new one is `active`, linked to the job, and has no candidate stage and no stage
 * moves: its candidates come from orders and their results go to the orders, so the stage-based
 * sync must not pull the job's applications into it too. Double-checked: the usual case (the
 * job's position exists) takes no lock, so orders for one job run in parallel; only a miss
 * takes the (integration, job) advisory lock, held to commit, and looks again under it, so two
 * first orders for one job at once make one position (the second sees the first's, committed
 * before its lock was granted: each statement reads anew under read committed).
 */
async function positionFor(tx: Tx, events: EventsOut<Queryable>, order: OrderIntake, template: PositionRow): Promise<string> {
  const jobId = order.job.remoteId;
  if (jobId) {
    const existing = await linkedPosition(tx, order, jobId);
    if (existing) return existing;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`assessment-job:${order.integrationId}:${jobId}`}))`);
    const madeMeanwhile = await linkedPosition(tx, order, jobId);
    if (madeMeanwhile) return madeMeanwhile;
  }
  const created = await createPositionIn(tx, events, order.orgId, {
    name: cut(order.job.name?.trim() || template.name, 100),
    state: "active",
    ...(template.department ? { department: template.department } : {}),
    ...(template.location ? { location: template.location } : {}),
    ...(template.minScore !== null ? { min_score: template.minScore } : {}),
    ...(template.roleDescription ? { role_description: template.roleDescription } : {}),
    ...(template.agentId ? { agent_id: template.agentId } : {}),
    accepted_languages: template.acceptedLanguages,
    ...(template.passedStage ? { passed_stage: template.passedStage } : {}),
    ...(template.rejectedStage ? { rejected_stage: template.rejectedStage } : {}),
    ...(template.needsReviewedStage ? { needs_reviewed_stage: template.needsReviewedStage } : {}),
    upstream_integration_id: order.integrationId,
    ...(jobId ? { upstream_job_id_id: jobId } : {}),
  });
  return created.id;
}

/**
 * An order made into its position, its candidate (written by the sync's own upsert:
 * upsertPositionedCandidates, one candidate per (position, application), its interview and link,
 * its `candidate.created` event) carrying the order and the results page's token, in `tx`.
 */
async function intakeOrder(tx: Tx, events: EventsOut<Queryable>, interviewBaseUrl: string, order: OrderIntake): Promise<OrderIntakeResult> {
  const pkg = await findTemplate(tx, order.orgId, order.packageId);
  if (!pkg) return { ok: false, reason: "This interview package is no longer offered." };
  const positionId = await positionFor(tx, events, order, pkg);
  const app = { position_id: positionId, upstream_application_id: order.candidate.applicationId, language: languageOf(pkg) };
  const { written, skipped } = await upsertPositionedCandidates(
    tx,
    order.orgId,
    [{ ...app, name: order.candidate.name, email: order.candidate.email, phone: order.candidate.phone }],
    interviewBaseUrl,
    events,
  );
  if (skipped.length > 0 || written.length === 0) {
    const [same] = await tx
      .select({ id: candidates.id })
      .from(candidates)
      .where(and(eq(candidates.positionId, positionId), eq(candidates.upstreamApplicationId, order.candidate.applicationId)));
    if (!same) return { ok: false, reason: "Another candidate with this email address is already interviewing for this job." };
    written.push({ id: same.id, inserted: false });
  }
  const candidateId = written[0]!.id;
  // The order's candidate carries it (the result goes to the order); a candidate already
  // carrying another order keeps it (one result per candidate).
  await tx
    .update(candidates)
    .set({
      upstreamAssessmentOrderId: order.orderId,
      resultsToken: sql`coalesce(${candidates.resultsToken}, ${randomBytes(24).toString("base64url")})`,
    })
    .where(
      and(
        eq(candidates.id, candidateId),
        or(isNull(candidates.upstreamAssessmentOrderId), eq(candidates.upstreamAssessmentOrderId, order.orderId)),
      ),
    );
  const [iv] = await tx.select({ link: interviews.interviewLink }).from(interviews).where(eq(interviews.candidateId, candidateId));
  if (!iv?.link) return { ok: false, reason: "The interview could not be prepared; please order it again." };
  return { ok: true, positionId, candidateId, interviewLink: iv.link, created: written[0]!.inserted };
}

/**
 * The organisation's interview packages and the intake of orders (the AssessmentRecruiting port,
 * wired in src/runtime/wiring.ts). The candidate and its interview are written by the sync's own
 * upsert (upsertPositionedCandidates: one candidate per (position, application), its interview
 * and link, its `candidate.created` event); the order and the results page's token are then set
 * on it.
 */
export function createAssessmentStore(opts: { interviewBaseUrl: string; events?: EventsOut<Queryable> }) {
  const events = opts.events ?? NO_EVENTS_OUT;
  return {
    async packages(q: Queryable, orgId: string): Promise<InterviewPackage[]> {
      return q
        .select(PACKAGE_COLUMNS)
        .from(positions)
        .where(and(eq(positions.organizationId, orgId), eq(positions.state, "template")))
        .orderBy(asc(positions.createdAt), asc(positions.id));
    },

    async findPackage(q: Queryable, orgId: string, packageId: string): Promise<InterviewPackage | null> {
      const row = await findTemplate(q, orgId, packageId);
      return row ? { id: row.id, name: row.name, roleDescription: row.roleDescription } : null;
    },

    intake: (tx: Tx, order: OrderIntake) => intakeOrder(tx, events, opts.interviewBaseUrl, order),

    async names(q: Queryable, orgId: string, ids: { positions: string[]; candidates: string[] }): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      if (ids.positions.length) {
        const rows = await q
          .select({ id: positions.id, name: positions.name })
          .from(positions)
          .where(and(eq(positions.organizationId, orgId), inArray(positions.id, ids.positions)));
        for (const r of rows) out.set(r.id, r.name);
      }
      if (ids.candidates.length) {
        const rows = await q
          .select({ id: candidates.id, name: candidates.name })
          .from(candidates)
          .where(and(eq(candidates.organizationId, orgId), inArray(candidates.id, ids.candidates)));
        for (const r of rows) out.set(r.id, r.name);
      }
      return out;
    },
  } satisfies AssessmentRecruiting<Tx, Queryable>;
}
