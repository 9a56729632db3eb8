/** The admin surface (/sandbox/…): every module registered explicitly. */
import type { App } from "../../../shared/http/create-app.js";
import type { SandboxContext } from "../context.js";
import { registerAdminAssessmentRoutes } from "./admin-assessment.routes.js";
import { registerAdminConfigRoutes } from "./admin-config.routes.js";
import { registerAdminDataRoutes } from "./admin-data.routes.js";
import { registerAdminIntegrationRoutes } from "./admin-integrations.routes.js";
import { registerAdminStageRoutes } from "./admin-stages.routes.js";
import { registerFileRoutes } from "./files.routes.js";

export function registerAdminRoutes(app: App, ctx: SandboxContext): void {
  registerAdminIntegrationRoutes(app, ctx);
  registerAdminDataRoutes(app, ctx);
  registerAdminStageRoutes(app, ctx);
  registerAdminConfigRoutes(app, ctx);
  registerFileRoutes(app, ctx);
  registerAdminAssessmentRoutes(app, ctx);
}
