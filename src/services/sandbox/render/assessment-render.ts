/**
 * The assessment channel's shapes: packages and orders on the wire (as the official SDK parses
 * them), an order's snapshot taken from the sandbox's own records when it is placed, and the order
 * as the ATS shows it to a recruiter (the admin view).
 */
import type {
  AssessmentHiringTeamMember,
  AssessmentOrder,
  AssessmentOrderReceivedData,
  AssessmentPackage,
} from "../../../contracts/upstream/index.js";
import type { OrderRow, PackageRow } from "../store/assessments.js";
import type { Dataset } from "../store/dataset.js";
import type { ApplicationRow, JobRow } from "../store/rows.js";

export const renderPackage = (p: PackageRow): AssessmentPackage => ({
  id: p.id,
  name: p.name,
  description: p.description,
  updated_at: new Date(p.updatedAt).toISOString(),
  type: p.type,
});

export const renderOrder = (o: OrderRow): AssessmentOrder => ({
  id: o.id,
  package_id: o.packageId,
  status: o.status,
  candidate: o.candidate,
  application: { remote_id: o.applicationRemoteId },
  job: o.job,
});

export const renderOrderReceived = (o: OrderRow, integrationId: string): AssessmentOrderReceivedData => ({
  ...renderOrder(o),
  integration_id: integrationId,
});

/** The job's hiring team, one entry per person with all their roles. */
function hiringTeam(data: Dataset, job: JobRow): AssessmentHiringTeamMember[] {
  const byUser = new Map<string, AssessmentHiringTeamMember>();
  for (const member of job.hiringTeam) {
    const user = data.users.get(member.userId);
    if (!user) continue;
    const entry = byUser.get(user.id) ?? {
      remote_id: user.remoteId,
      email: user.email,
      first_name: user.firstName,
      last_name: user.lastName,
      hiring_team_roles: [],
    };
    if (!entry.hiring_team_roles.includes(member.role)) entry.hiring_team_roles.push(member.role);
    byUser.set(user.id, entry);
  }
  return [...byUser.values()];
}

/**
 * What an order carries about the application it is placed for, copied at that moment (as the
 * ATS sends it; a later change to the candidate does not rewrite the order).
 */
export function orderSnapshot(
  data: Dataset,
  application: ApplicationRow,
): Pick<OrderRow, "candidate" | "applicationRemoteId" | "job"> | null {
  const candidate = data.candidates.get(application.candidateId);
  const job = data.jobs.get(application.jobId);
  if (!candidate || !job) return null;
  return {
    candidate: {
      remote_id: candidate.remoteId,
      email: candidate.email,
      first_name: candidate.firstName,
      last_name: candidate.lastName,
      phone: candidate.phone,
    },
    applicationRemoteId: application.remoteId,
    job: {
      remote_id: job.remoteId,
      name: job.name,
      job_code: job.jobCode,
      description: job.description,
      location: { city: job.city, country: job.country, raw: `${job.city}, ${job.country}` },
      hiring_team: hiringTeam(data, job),
    },
  };
}

/** The order as the ATS shows it: its state, the vendor's answer, the result and the files. */
export function renderOrderView(o: OrderRow, integrationId: string, packageName: string | null, origin: string) {
  const base = `${origin}/sandbox/integrations/${encodeURIComponent(integrationId)}/assessment-orders/${o.id}`;
  return {
    ...renderOrder(o),
    integration_id: integrationId,
    application_id: o.applicationId,
    package_name: packageName,
    inline: o.inline,
    created_at: new Date(o.createdAt).toISOString(),
    updated_at: new Date(o.changedAt).toISOString(),
    receiver: {
      state: o.receiver.state,
      event_id: o.receiver.eventId,
      last_status: o.receiver.status,
      attempts: o.receiver.attempts,
      error: o.receiver.error,
    },
    rejection_message: o.rejectionMessage,
    assessment_url: o.assessmentUrl,
    result: o.result && {
      status: o.result.status,
      score: o.result.score,
      max_score: o.result.maxScore,
      result_url: o.result.resultUrl,
      completed_at: o.result.completedAt,
      attributes: o.result.attributes,
      remote_fields: o.result.remoteFields,
      written_at: new Date(o.result.updatedAt).toISOString(),
    },
    attachments: o.attachments.map((a, index) => ({
      name: a.name,
      content_type: a.contentType,
      size: a.size,
      source: a.source,
      data_url: a.dataUrl,
      stored: a.content !== null,
      problem: a.problem,
      download_url: a.content ? `${base}/attachments/${index}` : null,
    })),
  };
}
