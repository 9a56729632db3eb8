import { verifierFromConfig } from "../../shared/auth/verify-jwt.js";
import { bannerLine, type ServiceFactory } from "../../runtime/service.js";
import type { JobQueue } from "../../shared/jobs/queue.js";
import { buildRecruitingApp } from "./app.js";
import type { RecruitingHooks } from "./interviews/interviews.service.js";

/**
 * `hirebridge serve api`: the recruiting API on API_PORT, trusting the configured issuer. `hooksFor`
 * gives the hooks over the process's job queue (src/runtime/wiring.ts: an interview that ends
 * enqueues its ATS write-back in the same transaction; the proxy process runs the workers).
 */
export const createRecruitingService =
  (hooksFor: (queue: JobQueue) => RecruitingHooks): ServiceFactory =>
  async ({ config, urls, logger, database, jobQueue }) => {
    if (!database) throw new Error("the recruiting API needs storage");
    const verify = verifierFromConfig(config, urls.issuer);
    const hooks = hooksFor(await jobQueue());
    const app = await buildRecruitingApp({ config, database, logger, verify, hooks });
    const origin = urls.api.replace(/\/api\/v1$/, "");
    return {
      name: "api",
      app,
      port: config.API_PORT,
      banner: () => [bannerLine("Recruiting API", `${urls.api}  (OpenAPI ${urls.api}/openapi.json, docs ${origin}/docs)`)],
    };
  };
