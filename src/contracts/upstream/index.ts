/** The upstream unified ATS API (Kombo wire protocol): records, envelopes, requests, webhooks. */
export type * from "./ats-records.js";
export type * from "./integration-records.js";
export * from "./envelopes.js";
export * from "./requests.js";
export * from "./webhooks.js";
