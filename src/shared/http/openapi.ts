import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { App } from "./create-app.js";

/**
 * OpenAPI 3.1 generated from the same TypeBox schemas that validate the routes, served at
 * `{prefix}/openapi.json`, with the docs page at `/docs`. Register before the routes.
 */
export async function registerOpenApi(
  app: App,
  opts: { title: string; description: string; version?: string; prefix: string },
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: opts.title, description: opts.description, version: opts.version ?? "1.0.0" },
      components: {
        securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs", staticCSP: true });
  app.get(`${opts.prefix}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
}
