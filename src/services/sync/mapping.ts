import type { Application, Job, Location } from "../../contracts/upstream/index.js";
import type { PositionedApplication, UpstreamJob } from "../../shared/ports/recruiting-sync.js";
import { htmlToText } from "./html-to-text.js";
import { matchStage } from "./stage-match.js";

/** Upstream job status → position state; a job deleted upstream makes its position inactive. */
export function positionState(job: Pick<Job, "status" | "remote_deleted_at">): "active" | "draft" | "inactive" {
  if (job.remote_deleted_at) return "inactive";
  switch (job.status) {
    case "OPEN":
      return "active";
    case "CLOSED":
    case "ARCHIVED":
      return "inactive";
    default:
      // DRAFT, an unknown value of the open enum, or none: not live until someone says so.
      return "draft";
  }
}

function locationText(location: Location | null | undefined): string | null {
  if (!location) return null;
  if (location.raw?.trim()) return location.raw.trim();
  const parts = [location.city, location.state, location.country].filter((p): p is string => !!p?.trim());
  return parts.length ? parts.join(", ") : null;
}

/**
 * The upstream-owned fields of a position (the store cuts them to its columns' lengths). A new
 * position's candidate stage is the job's stage matching the configured default, if any (its id);
 * the job's stages let the store resolve name-only stage mappings to ids.
 */
export function mapJob(job: Job, defaultCandidateStage: string | null): UpstreamJob {
  const description = job.description ? htmlToText(job.description) : "";
  const stage = matchStage(job.stages ?? [], defaultCandidateStage);
  return {
    upstream_job_id_id: job.id,
    name: job.name?.trim() || job.job_code?.trim() || `Job ${job.remote_id}`,
    state: positionState(job),
    department: job.department?.trim() || null,
    location: locationText(job.location),
    role_description: description || null,
    // The stage's id: a mapping keeps working when the stage is renamed upstream (issue 42).
    candidate_stage: stage?.id || null,
    stages: (job.stages ?? []).map((s) => ({ id: s.id, name: s.name })),
  };
}

/**
 * An application as a candidate of `position` (a new candidate gets the position's first language),
 * or null when it has no email address (it is skipped and counted).
 */
export function mapApplication(app: Application, position: { id: string; language: string }): PositionedApplication | null {
  const c = app.candidate;
  const email = c?.email_addresses?.map((e) => e.email_address?.trim()).find((e): e is string => !!e && e.includes("@"));
  if (!c || !email) return null;
  const name =
    [c.first_name, c.last_name]
      .map((p) => p?.trim())
      .filter(Boolean)
      .join(" ") || email;
  const phone = c.phone_numbers?.map((p) => p.phone_number?.trim()).find((p): p is string => !!p) ?? null;
  const tags = [...new Set(c.tags.map((t) => t.name?.trim()).filter((t): t is string => !!t))];
  return {
    upstream_application_id: app.id,
    name,
    email: email.slice(0, 200),
    phone,
    language: position.language,
    tags,
    position_id: position.id,
  };
}
