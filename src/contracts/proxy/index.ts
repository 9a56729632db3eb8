/** Contracts of the integration proxy (spec/integration-proxy.md): every query, path and body schema. */
export * from "./common.js";
export * from "./general.js";
export * from "./integrations.js";
export * from "./ats.js";
export * from "./connect.js";
export * from "./webhooks.js";
export * from "./activity.js";
export * from "./webhook-events.js";
export * from "./assessment.js";
