import { and, eq, getTableColumns, inArray, or, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { candidates, type CandidateRow } from "../candidates/candidates.tables.js";
import { newInterviewLink } from "../interviews/interview-link.js";
import { insertInterviews } from "../interviews/interviews.repository.js";
import { clip } from "./upstream-positions.repository.js";

/** What the sync engine knows about an upstream application (and its candidate). */
export type UpstreamApplication = {
  upstream_application_id: string;
  name: string;
  email: string;
  phone: string | null;
  /** Used when the candidate is created; Hirebridge owns it afterwards. */
  language: string;
  /** Used when the candidate is created; Hirebridge owns them afterwards. */
  tags?: string[];
};

/** An upserted row, with whether it was new and whether anything changed (true for new rows). */
export type UpsertedCandidate = CandidateRow & { inserted: boolean; changed: boolean };

export type SkippedApplication = {
  upstream_application_id: string;
  reason: "email_taken" | "duplicate_email_in_page";
};

/** An application to upsert as a candidate of `position_id`. */
export type PositionedApplication = UpstreamApplication & { position_id: string };

/** Upserts a page of applications as candidates of one position (see upsertPositionedCandidates). */
export function upsertUpstreamCandidates(
  q: Queryable,
  orgId: string,
  positionId: string,
  applications: UpstreamApplication[],
  interviewBaseUrl: string,
): Promise<{ candidates: UpsertedCandidate[]; skipped: SkippedApplication[] }> {
  return upsertPositionedCandidates(
    q,
    orgId,
    applications.map((a) => ({ ...a, position_id: positionId })),
    interviewBaseUrl,
  );
}

/**
 * Upserts a page of applications, of any positions of the org, as candidates on (position,
 * upstream_application_id), with set-based statements: one lookup of the rows they may meet, one
 * multi-row upsert, one multi-row insert of the new candidates' interview records. New ones are
 * inserted with their interview record, existing ones get the upstream-owned fields (name, email,
 * phone); language and tags are set on creation only. A candidate created by hand with the same
 * email in the same position is adopted (linked) rather than duplicated; an application whose email
 * already belongs to a candidate linked to another application is skipped and reported rather
 * than failing the page (two applications swapping emails within one page still raise a unique
 * violation). Must run inside the caller's transaction (it is several statements).
 */
export async function upsertPositionedCandidates(
  q: Queryable,
  orgId: string,
  applications: PositionedApplication[],
  interviewBaseUrl: string,
): Promise<{ candidates: UpsertedCandidate[]; skipped: SkippedApplication[] }> {
  const skipped: SkippedApplication[] = [];
  const key = (position: string, value: string) => `${position}\u0000${value}`;
  const byApplication = new Map(applications.map((a) => [key(a.position_id, a.upstream_application_id), a]));
  const byEmail = new Map<string, PositionedApplication>();
  for (const app of byApplication.values()) {
    const k = key(app.position_id, app.email.toLowerCase());
    if (byEmail.has(k)) skipped.push({ upstream_application_id: app.upstream_application_id, reason: "duplicate_email_in_page" });
    else byEmail.set(k, app);
  }
  if (byEmail.size === 0) return { candidates: [], skipped };

  const apps = [...byEmail.values()];
  const existing = await q
    .select({
      id: candidates.id,
      position: candidates.positionId,
      email: sql<string>`lower(${candidates.email})`,
      app: candidates.upstreamApplicationId,
    })
    .from(candidates)
    .where(
      and(
        inArray(candidates.positionId, [...new Set(apps.map((a) => a.position_id))]),
        or(
          inArray(sql`lower(${candidates.email})`, [...new Set(apps.map((a) => a.email.toLowerCase()))]),
          inArray(
            candidates.upstreamApplicationId,
            apps.map((a) => a.upstream_application_id),
          ),
        ),
      ),
    );
  const mailOwner = new Map(existing.map((h) => [key(h.position, h.email), h]));
  const linkedApps = new Set(existing.filter((h) => h.app !== null).map((h) => key(h.position, h.app!)));
  const accepted: PositionedApplication[] = [];
  for (const [k, app] of byEmail) {
    const byMail = mailOwner.get(k);
    const linked = linkedApps.has(key(app.position_id, app.upstream_application_id));
    if (byMail && byMail.app !== app.upstream_application_id) {
      // A hand-made candidate with this email is adopted, unless the application is already linked elsewhere.
      if (byMail.app !== null || linked) {
        skipped.push({ upstream_application_id: app.upstream_application_id, reason: "email_taken" });
        continue;
      }
      await q
        .update(candidates)
        .set({ upstreamApplicationId: app.upstream_application_id, updatedAt: sql`now()` })
        .where(eq(candidates.id, byMail.id));
    }
    accepted.push(app);
  }
  if (accepted.length === 0) return { candidates: [], skipped };

  const changed = sql`(${candidates.name}, ${candidates.email}, ${candidates.phone})
    is distinct from (excluded.name, excluded.email, excluded.phone)`;
  const rows = await q
    .insert(candidates)
    .values(
      accepted.map((a) => ({
        organizationId: orgId,
        positionId: a.position_id,
        upstreamApplicationId: a.upstream_application_id,
        name: clip(a.name, 200)!,
        email: a.email,
        phone: a.phone?.trim() ? clip(a.phone, 200) : null,
        language: clip(a.language, 200)!,
        tags: [...new Set(a.tags ?? [])],
      })),
    )
    .onConflictDoUpdate({
      target: [candidates.positionId, candidates.upstreamApplicationId],
      set: {
        name: sql`excluded.name`,
        email: sql`excluded.email`,
        phone: sql`excluded.phone`,
        updatedAt: sql`case when ${changed} then now() else ${candidates.updatedAt} end`,
      },
    })
    .returning({
      ...getTableColumns(candidates),
      // xmax is 0 on a freshly inserted row version; updated_at moved to now() only if something changed.
      inserted: sql<boolean>`(xmax = 0)`,
      changed: sql<boolean>`(${candidates.updatedAt} = now())`,
    });
  await insertInterviews(
    q,
    rows
      .filter((r) => r.inserted)
      .map((r) => ({ organizationId: orgId, candidateId: r.id, interviewLink: newInterviewLink(interviewBaseUrl) })),
  );
  return { candidates: rows, skipped };
}
