import { verifierFromConfig } from "../../shared/auth/verify-jwt.js";
import { bannerLine, type ServiceFactory } from "../../runtime/service.js";
import { writeBackHook } from "../sync/write-back.js";
import { buildRecruitingApp } from "./app.js";

/**
 * `hirebridge serve api`: the recruiting API on API_PORT, trusting the configured issuer. An
 * interview that ends enqueues its ATS write-back on the process's job queue, in the same
 * transaction (the proxy process runs the workers).
 */
export const createRecruitingService: ServiceFactory = async ({ config, urls, logger, database, jobQueue }) => {
  if (!database) throw new Error("the recruiting API needs storage");
  const verify = verifierFromConfig(config, urls.issuer);
  const hooks = { onInterviewEnded: writeBackHook(await jobQueue()) };
  const app = await buildRecruitingApp({ config, database, logger, verify, hooks });
  const origin = urls.api.replace(/\/api\/v1$/, "");
  return {
    name: "api",
    app,
    port: config.API_PORT,
    banner: () => [bannerLine("Recruiting API", `${urls.api}  (OpenAPI ${urls.api}/openapi.json, docs ${origin}/docs)`)],
  };
};
