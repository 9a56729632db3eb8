import type { App } from "../../shared/http/create-app.js";
import type { SyncJobsDeps, SyncWork } from "./sync-jobs.js";

/** What the sync module's routes receive (`assessments`: the order names the activity trail shows). */
export type SyncDeps = Pick<SyncJobsDeps, "config" | "database" | "logger" | "integrations" | "assessments"> & { sync: SyncWork };
export type SyncRoutes = (app: App, opts: { deps: SyncDeps }) => Promise<void>;
