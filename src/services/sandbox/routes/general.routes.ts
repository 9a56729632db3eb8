/** check-api-key, force-sync and tools (reference §2a). */
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { App } from "../../../shared/http/create-app.js";
import { ForceSyncBodySchema, type SyncType } from "../../../contracts/upstream/index.js";
import { Random } from "../data/random.js";
import { TOOLS, renderTool } from "../data/tools.js";
import { originOf, type SandboxContext } from "../context.js";
import { inputInvalid } from "../errors.js";
import { integrationOf } from "../http/upstream-guards.js";
import { startSync } from "../sync-runner.js";

export function registerGeneralRoutes(app: App, ctx: SandboxContext): void {
  const environmentId = new Random(`${ctx.deps.seed}:environment`).id();

  app.get("/check-api-key", async () => ({ status: "success", data: { environment_id: environmentId } }));

  app.post("/force-sync", { config: { upstream: { xi: true } } }, async (request) => {
    // The SDK always sends {"type": …}; a bare POST means FULL, as the upstream's default.
    const body = request.body ?? {};
    if (!Value.Check(ForceSyncBodySchema, body)) throw inputInvalid("body.type: must be FULL or DELTA");
    const type: SyncType = (body as { type?: SyncType }).type ?? "FULL";
    return { status: "success", data: startSync(ctx, integrationOf(request), type, originOf(ctx, request)) };
  });

  app.get(
    "/tools/:category",
    { schema: { params: Type.Object({ category: Type.Union(["hris", "ats", "assessment", "lms"].map((c) => Type.Literal(c))) }) } },
    async (request) => {
      const category = request.params.category.toUpperCase();
      const origin = originOf(ctx, request);
      return { status: "success", data: { tools: TOOLS.filter((t) => t.category === category).map((t) => renderTool(t, origin)) } };
    },
  );
}
