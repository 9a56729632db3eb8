/**
 * Downloads the sandbox hands out in its records: attachment files (the `data_url` of §4.10) and
 * tool logos (the `assets` of §4.12). Public like the upstream's pre-signed resource URLs.
 */
import { Type } from "@sinclair/typebox";
import type { App } from "../../../shared/http/create-app.js";
import { TOOLS } from "../data/tools.js";
import type { SandboxContext } from "../context.js";
import { SandboxError } from "../errors.js";
import { attachmentsOf } from "../render/attachments.js";

const notFound = () => new SandboxError(404, null, "No such file.", { title: "Not found" });

export function registerFileRoutes(app: App, ctx: SandboxContext): void {
  app.get(
    "/sandbox/files/:integration_id/:application_id/:attachment_id",
    { schema: { params: Type.Object({ integration_id: Type.String(), application_id: Type.String(), attachment_id: Type.String() }) } },
    async (request, reply) => {
      const { integration_id, application_id, attachment_id } = request.params;
      const data = ctx.store.get(integration_id)?.data;
      const application = data?.applications.get(application_id);
      const file = data && application ? attachmentsOf(data, application).find((a) => a.id === attachment_id) : undefined;
      if (!file) throw notFound();
      return reply
        .type(file.contentType)
        .header("content-disposition", `attachment; filename="${file.fileName.replace(/["\\]/g, "_")}"`)
        .send(file.content);
    },
  );

  app.get(
    "/sandbox/assets/:tool/:file",
    {
      schema: {
        params: Type.Object({
          tool: Type.String(),
          file: Type.Union(["logo.svg", "icon.svg", "icon-black.svg"].map((f) => Type.Literal(f))),
        }),
      },
    },
    async (request, reply) => {
      const tool = TOOLS.find((t) => t.id === request.params.tool);
      if (!tool) throw notFound();
      const black = request.params.file === "icon-black.svg";
      const hue = [...tool.id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 360, 7);
      const initials = tool.label.slice(0, 2);
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="${black ? "#000" : `hsl(${hue} 60% 45%)`}"/><text x="32" y="41" font-family="sans-serif" font-size="24" fill="#fff" text-anchor="middle">${initials}</text></svg>`;
      return reply.type("image/svg+xml").header("cache-control", "public, max-age=86400").send(svg);
    },
  );
}
