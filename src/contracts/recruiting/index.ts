/** Contracts of the recruiting API (TypeBox schemas + static types), shared by the server, the SDK and the tests. */
export * from "./candidates.js";
export * from "./fields.js";
export * from "./interviews.js";
export * from "./org.js";
export * from "./positions.js";
export * from "./data-retention.js";
