/** Internal rows → the upstream's reference records (reference §4.4-4.9): stages, tags, rejection reasons, users, offers, interviews. */
import type { ApplicationStage, Interview, Offer, RejectionReason, Tag, User } from "../../../contracts/upstream/index.js";
import type { Dataset } from "../store/dataset.js";
import type { InterviewRow, OfferRow, RejectionReasonRow, StageRow, TagRow, UserRow } from "../store/rows.js";
import { interviewSummary, iso, isoOrNull, jobRef, personRef } from "./ats-render.js";

export const renderStage = (s: StageRow): ApplicationStage => ({
  id: s.id,
  remote_id: s.remoteId,
  name: s.name,
  changed_at: iso(s.changedAt),
  remote_deleted_at: isoOrNull(s.deletedAt),
});

export const renderTag = (t: TagRow): Tag => ({
  id: t.id,
  remote_id: t.remoteId,
  name: t.name,
  changed_at: iso(t.changedAt),
  remote_deleted_at: isoOrNull(t.deletedAt),
});

export const renderRejectionReason = (r: RejectionReasonRow): RejectionReason => ({
  id: r.id,
  remote_id: r.remoteId,
  name: r.name,
  changed_at: iso(r.changedAt),
  remote_deleted_at: isoOrNull(r.deletedAt),
});

export const renderUser = (u: UserRow): User => ({
  id: u.id,
  remote_id: u.remoteId,
  first_name: u.firstName,
  last_name: u.lastName,
  email: u.email,
  status: u.active ? "ACTIVE" : "INACTIVE",
  changed_at: iso(u.changedAt),
  remote_deleted_at: isoOrNull(u.deletedAt),
  system_roles: u.admin ? [{ remote_id: "admin", remote_label: "Site Admin", scope: "SYSTEM", unified_type: "ADMIN" }] : [],
});

export function renderOffer(data: Dataset, o: OfferRow): Offer {
  const a = data.applications.get(o.applicationId);
  return {
    id: o.id,
    remote_id: o.remoteId,
    status: o.status,
    employment_start_date: iso(o.startDate),
    application_id: o.applicationId,
    custom_fields: {},
    changed_at: iso(o.changedAt),
    remote_deleted_at: isoOrNull(o.deletedAt),
    remote_created_at: iso(o.createdAt),
    remote_updated_at: iso(o.updatedAt),
    application: a ? { candidate: personRef(data.candidates.get(a.candidateId)), job: jobRef(data.jobs.get(a.jobId)) } : null,
  };
}

export function renderInterview(data: Dataset, i: InterviewRow): Interview {
  const a = data.applications.get(i.applicationId);
  return {
    ...interviewSummary(i),
    video_conferencing_url: i.videoUrl,
    application_id: i.applicationId,
    stage_id: i.stageId,
    remote_created_at: iso(i.createdAt),
    remote_updated_at: iso(i.updatedAt),
    changed_at: iso(i.changedAt),
    remote_deleted_at: isoOrNull(i.deletedAt),
    users: i.userIds
      .map((id) => data.users.get(id))
      .filter((u): u is UserRow => !!u)
      .map((u) => ({
        id: u.id,
        remote_id: u.remoteId,
        first_name: u.firstName,
        last_name: u.lastName,
        email: u.email,
      })),
    application: a
      ? {
          id: a.id,
          remote_id: a.remoteId,
          outcome: a.outcome,
          rejection_reason_name: a.rejectionReasonId ? (data.rejectionReasons.get(a.rejectionReasonId)?.name ?? null) : null,
          candidate: personRef(data.candidates.get(a.candidateId)),
          job: jobRef(data.jobs.get(a.jobId)),
        }
      : null,
  };
}
