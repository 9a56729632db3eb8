import { type Static, Type } from "@sinclair/typebox";
import { DateTime, HttpUrl, Int32, Uuid } from "../common.js";
import { OrNull, readOnly, StringEnum } from "./fields.js";

export const INTERVIEW_STATUSES = ["not_started", "errored", "cancelled", "completed", "graded"] as const;
export type InterviewStatus = (typeof INTERVIEW_STATUSES)[number];
export const InterviewStatusSchema = StringEnum(INTERVIEW_STATUSES, {
  description:
    "not_started → completed | errored | cancelled; completed → graded; errored → not_started (retry). Any other change answers 409.",
});

const fields = {
  conversation_id: OrNull(Type.String({ minLength: 1, maxLength: 100 })),
  transcript_link: OrNull(HttpUrl({ minLength: 1, maxLength: 350 })),
  recording_link: OrNull(HttpUrl({ minLength: 1, maxLength: 350 })),
  start_time: OrNull(DateTime()),
  end_time: OrNull(DateTime()),
  graded_at: OrNull(DateTime({ description: "Set to the time of grading when the status becomes graded and none is sent." })),
  last_attempted_at: OrNull(DateTime()),
  ip_address: OrNull(Type.String({ minLength: 1 })),
  location: OrNull(Type.String({ minLength: 1, maxLength: 200 })),
  interview_link: OrNull(Type.String({ minLength: 1, maxLength: 200 })),
  score: OrNull(Int32()),
  feedback: OrNull(Type.String({ minLength: 1 })),
  interview_transcript: OrNull(Type.String({ minLength: 1, maxLength: 20000 })),
};

/** The candidate's interview record (one per candidate, created with it). */
export const InterviewSchema = Type.Object(
  {
    id: Uuid(),
    ...fields,
    interview_link: OrNull(Type.String({ minLength: 1, maxLength: 200 }), {
      description: "Where the candidate takes the interview; unguessable, issued by the server.",
      readOnly: true,
    }),
    status: InterviewStatusSchema,
    candidate: Uuid({ description: "The candidate's id." }),
  },
  { additionalProperties: false, title: "CandidateInterview" },
);
export type Interview = Static<typeof InterviewSchema>;

/**
 * PUT .../interview/: the interview runner reports progress and results. Only the fields sent
 * change. Moving to `graded` needs a score (sent now or earlier); the candidate's `score`,
 * `feedback` and `completed_at` then follow the interview in the same transaction.
 */
export const InterviewUpdateSchema = Type.Object(
  {
    status: Type.Optional(InterviewStatusSchema),
    conversation_id: Type.Optional(fields.conversation_id),
    transcript_link: Type.Optional(fields.transcript_link),
    recording_link: Type.Optional(fields.recording_link),
    start_time: Type.Optional(fields.start_time),
    end_time: Type.Optional(fields.end_time),
    graded_at: Type.Optional(fields.graded_at),
    last_attempted_at: Type.Optional(fields.last_attempted_at),
    ip_address: Type.Optional(fields.ip_address),
    location: Type.Optional(fields.location),
    score: Type.Optional(fields.score),
    feedback: Type.Optional(fields.feedback),
    interview_transcript: Type.Optional(fields.interview_transcript),
    id: readOnly(Uuid()),
    candidate: readOnly(Uuid()),
    interview_link: readOnly(fields.interview_link),
  },
  { additionalProperties: false, title: "CandidateInterviewUpdate" },
);
export type InterviewUpdate = Static<typeof InterviewUpdateSchema>;

/**
 * POST .../interview/correction: the one way to change a graded result. The score (and feedback)
 * change on the interview and the candidate, and a corrective write-back tells the ATS, with the
 * reason, in the same transaction.
 */
export const InterviewCorrectionSchema = Type.Object(
  {
    score: Int32({ description: "The corrected score." }),
    feedback: Type.Optional(OrNull(Type.String({ minLength: 1 }), { description: "The corrected feedback; absent keeps it." })),
    reason: Type.String({
      minLength: 1,
      maxLength: 500,
      description: "Why the result is corrected (kept with the write-back, and in its note in the ATS).",
    }),
  },
  { additionalProperties: false, title: "CandidateInterviewCorrection" },
);
export type InterviewCorrection = Static<typeof InterviewCorrectionSchema>;
