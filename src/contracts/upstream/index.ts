/** The upstream unified ATS API (Kombo wire protocol): records, envelopes, requests, webhooks. */
export * from "./ats-records.js";
export * from "./ats-application-records.js";
export * from "./ats-reference-records.js";
export * from "./integration-records.js";
export * from "./envelopes.js";
export * from "./requests.js";
export * from "./webhooks.js";
export * from "./assessment.js";
