import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { ErrorDetailSchema, HTTPValidationErrorSchema, ValidationErrorSchema } from "../../contracts/common.js";
import { serviceUrls, type BaseConfig } from "../config.js";
import type { App } from "./create-app.js";

/** Where the docs page's Authorize button gets tokens: the issuer's token endpoint, as a public client. */
export type DocsOAuth = {
  /** The realm (issuer) URL: `{issuer}/protocol/openid-connect/{token,auth}`. */
  issuer: string;
  clientId: string;
  /** Also offer the authorization-code flow with PKCE (needs the issuer's /auth endpoint and a client allowed to use it). */
  authorizationCode?: boolean;
};

/** The Authorize settings of an API's docs page: the configured issuer (Keycloak or the embedded one) and client. */
export const docsOAuth = (config: BaseConfig): DocsOAuth => ({ issuer: serviceUrls(config).issuer, clientId: config.AUTH_CLIENT_ID });

type Operation = { security?: Record<string, string[]>[]; description?: string; summary?: string };
type Document = {
  components?: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
  paths?: Record<string, Record<string, Operation>>;
};

/** The error bodies every API answers with, listed once under components.schemas. */
const ERROR_SCHEMAS = {
  ErrorDetail: { ...ErrorDetailSchema, description: 'Every error other than a validation failure: `{"detail": "…"}`.' },
  ValidationError: ValidationErrorSchema,
  HTTPValidationError: {
    type: "object",
    required: ["detail"],
    properties: { detail: { type: "array", items: { $ref: "#/components/schemas/ValidationError" } } },
    description: HTTPValidationErrorSchema.description,
  },
};

/**
 * The generated document, completed: the error schemas under components, and (with `oauth`) an
 * OAuth2 scheme next to the bearer one, accepted wherever a bearer token is, so Swagger UI's
 * Authorize button logs in at the token service instead of asking for a pasted token.
 */
function complete(doc: Document, oauth: DocsOAuth | undefined): Document {
  doc.components ??= {};
  doc.components.schemas = { ...ERROR_SCHEMAS, ...doc.components.schemas };
  if (!oauth) return doc;
  const base = `${oauth.issuer}/protocol/openid-connect`;
  doc.components.securitySchemes = {
    ...doc.components.securitySchemes,
    oauth: {
      type: "oauth2",
      description: `Log in at the token service (client \`${oauth.clientId}\`; locally user \`demo\`, password \`demo-password\`).`,
      flows: {
        password: { tokenUrl: `${base}/token`, refreshUrl: `${base}/token`, scopes: {} },
        ...(oauth.authorizationCode
          ? { authorizationCode: { authorizationUrl: `${base}/auth`, tokenUrl: `${base}/token`, scopes: {} } }
          : {}),
      },
    },
  };
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(operations)) {
      if (op.security?.some((s) => "bearer" in s)) op.security = [...op.security, { oauth: [] }];
    }
  }
  return doc;
}

/**
 * OpenAPI 3.1 generated from the same TypeBox schemas that validate the routes, served at
 * `{prefix}/openapi.json`, with the docs page at `/docs`. Register before the routes.
 */
export async function registerOpenApi(
  app: App,
  opts: { title: string; description: string; version?: string; prefix: string; oauth?: DocsOAuth },
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: opts.title, description: opts.description, version: opts.version ?? "1.0.0" },
      components: {
        securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      },
    },
    transformObject: (documentObject) =>
      complete(
        ("openapiObject" in documentObject ? documentObject.openapiObject : documentObject.swaggerObject) as Document,
        opts.oauth,
      ) as never,
  });
  const tokenOrigin = opts.oauth ? new URL(opts.oauth.issuer).origin : undefined;
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    staticCSP: true,
    ...(opts.oauth
      ? {
          initOAuth: { clientId: opts.oauth.clientId, usePkceWithAuthorizationCodeGrant: true },
          uiConfig: { persistAuthorization: true },
          // The page calls the token service (another origin); over plain http (local) nothing is upgraded.
          transformStaticCSP: (header: string) => {
            const csp = header.replace("default-src 'self';", `default-src 'self'; connect-src 'self' ${tokenOrigin};`);
            return tokenOrigin?.startsWith("http:") ? csp.replace(/\s*upgrade-insecure-requests;?/, "") : csp;
          },
        }
      : {}),
  });
  app.get(`${opts.prefix}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
}
