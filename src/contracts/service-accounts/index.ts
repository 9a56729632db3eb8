/** Contracts of the service accounts (issue 42): their management on the recruiting API. */
export * from "./service-accounts.js";
