/**
 * The upstream's (Kombo wire protocol) envelopes and its closed list of error codes
 * (reference/upstream-kombo.md §3). The SDK rejects any code outside these lists, so the sandbox
 * emits only these and the proxy may switch on them exhaustively. The envelopes' schemas take the
 * schema of what they carry (the sandbox serialises its answers with them, the contract tests check
 * them); their TypeScript types stay generic over the carried type.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { Nullable } from "../common.js";

/** The 8 codes every endpoint may answer; the only ones for /check-api-key, /integrations/*, /tools, /connect/*, /force-sync. */
export const PLATFORM_ERROR_CODES = [
  "PLATFORM.RATE_LIMIT_EXCEEDED",
  "PLATFORM.CONCURRENCY_LIMIT_EXCEEDED",
  "PLATFORM.INTEGRATION_NOT_FOUND",
  "PLATFORM.INPUT_INVALID",
  "PLATFORM.UNKNOWN_ERROR",
  "PLATFORM.IP_NOT_WHITELISTED",
  "PLATFORM.AUTHENTICATION_INVALID",
  "PLATFORM.TASK_TIMED_OUT",
] as const;

/** Codes the /ats/* endpoints may answer in addition to the platform ones. */
export const ATS_ERROR_CODES = [
  ...PLATFORM_ERROR_CODES,
  "INTEGRATION.PERMISSION_MISSING",
  "INTEGRATION.AUTHENTICATION_INVALID",
  "INTEGRATION.QA_FAILED",
  "INTEGRATION.SETUP_SYNC_PENDING",
  "INTEGRATION.SETUP_INCOMPLETE",
  "INTEGRATION.INACTIVE",
  "INTEGRATION.MODEL_NOT_AVAILABLE",
  "INTEGRATION.MODEL_DISABLED",
  "INTEGRATION.ACTION_NOT_AVAILABLE",
  "INTEGRATION.ACTION_DISABLED",
  "REMOTE.SERVICE_UNAVAILABLE",
  "REMOTE.RATE_LIMIT_EXCEEDED",
  "REMOTE.INPUT_INVALID",
  "REMOTE.UNKNOWN_HTTP_ERROR",
  "ATS.JOB_CLOSED",
  "ATS.APPLICATION_ALREADY_EXISTS",
] as const;

export type PlatformErrorCode = (typeof PLATFORM_ERROR_CODES)[number];
export type UpstreamErrorCode = (typeof ATS_ERROR_CODES)[number];

export const UpstreamErrorCodeSchema = Type.Union(ATS_ERROR_CODES.map((code) => Type.Literal(code)));

/** `{"status":"error","error":{code,title,message,log_url}}`: all four keys always present. */
export const UpstreamErrorEnvelopeSchema = Type.Object({
  status: Type.Literal("error"),
  error: Type.Object({
    code: Nullable(UpstreamErrorCodeSchema),
    title: Nullable(Type.String()),
    message: Type.String(),
    log_url: Nullable(Type.String()),
  }),
});
export type UpstreamErrorEnvelope = Static<typeof UpstreamErrorEnvelopeSchema>;

export const UpstreamWarningSchema = Type.Object({ message: Type.String() });
export type UpstreamWarning = Static<typeof UpstreamWarningSchema>;

/** A read: `{"status":"success","data":…}`. */
export type UpstreamSuccess<T> = { status: "success"; data: T };

/** Write actions and attachment reads: the same plus a required `warnings` array. */
export type UpstreamActionSuccess<T> = { status: "success"; data: T; warnings: UpstreamWarning[] };

/** A page of a list endpoint: `next` is the cursor to send back as `?cursor=`, null on the last page. */
export type UpstreamPage<T> = { next: string | null; results: T[] };

export type UpstreamListSuccess<T> = UpstreamSuccess<UpstreamPage<T>>;

export const UpstreamSuccessSchema = <T extends TSchema>(data: T) => Type.Object({ status: Type.Literal("success"), data });
export const UpstreamActionSuccessSchema = <T extends TSchema>(data: T) =>
  Type.Object({ status: Type.Literal("success"), data, warnings: Type.Array(UpstreamWarningSchema) });
export const UpstreamPageSchema = <T extends TSchema>(item: T) => Type.Object({ next: Nullable(Type.String()), results: Type.Array(item) });
export const UpstreamListSuccessSchema = <T extends TSchema>(item: T) => UpstreamSuccessSchema(UpstreamPageSchema(item));

/** Page-size limits of the list endpoints (§2d). */
export const PAGE_SIZE = { default: 100, max: 250, integrationFieldsMax: 2000 } as const;
