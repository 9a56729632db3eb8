import type { Application, Job, Location } from "../../contracts/upstream/index.js";
import { cut, htmlToText } from "./html-to-text.js";
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

export type MappedJob = {
  upstream_job_id_id: string;
  name: string;
  state: "active" | "draft" | "inactive";
  department: string | null;
  location: string | null;
  role_description: string | null;
  /** Set on a new position only, when the job has a stage matching the configured default. */
  candidate_stage: string | null;
};

/** The upstream-owned fields of a position, cut to the field limits of the spec. */
export function mapJob(job: Job, defaultCandidateStage: string | null): MappedJob {
  const description = job.description ? htmlToText(job.description) : "";
  const stage = matchStage(job.stages ?? [], defaultCandidateStage);
  return {
    upstream_job_id_id: job.id,
    name: cut(job.name?.trim() || job.job_code?.trim() || `Job ${job.remote_id}`, 100),
    state: positionState(job),
    department: job.department?.trim() ? cut(job.department.trim(), 100) : null,
    location: (() => {
      const text = locationText(job.location);
      return text ? cut(text, 100) : null;
    })(),
    role_description: description ? cut(description, 500) : null,
    candidate_stage: stage?.name ? cut(stage.name, 200) : null,
  };
}

export type MappedApplication = {
  upstream_application_id: string;
  name: string;
  email: string;
  phone: string | null;
  tags: string[];
};

/** An application as a candidate, or null when it has no email address (it is skipped and counted). */
export function mapApplication(app: Application): MappedApplication | null {
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
  return { upstream_application_id: app.id, name: cut(name, 200), email: email.slice(0, 200), phone: phone ? cut(phone, 200) : null, tags };
}
