import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import type { UpstreamMethod } from "../../../shared/upstream/upstream-client.js";

export type OperationTag = "General" | "Integrations" | "Unified ATS" | "Assessment" | "Connect";

/**
 * One operation of the proxy and how it maps onto the upstream. The table of these
 * (operations.table.ts) drives route registration, upstream request building and the OpenAPI
 * descriptions, so the three cannot drift apart.
 */
/** The contract of an operation's input: TypeBox schemas from src/contracts/proxy. */
export type OperationSchema = { querystring?: TObject; params?: TObject; body?: TSchema; headers?: TObject };

export type ProxyOperation<S extends OperationSchema = OperationSchema> = {
  operationId: string;
  tag: OperationTag;
  method: UpstreamMethod;
  /** Below /api/v1, with `{name}` path parameters (OpenAPI style). */
  path: string;
  summary: string;
  /** The spec's notes on the operation. */
  notes?: string;
  /** Where the integration the operation acts on is named; it must belong to the caller's org. */
  tenancy: "query" | "path" | "none";
  /**
   * The integration may also come in the `X-Integration-Id` header (the upstream's own SDKs send it
   * there), copied into the query before validation; when both are given they must agree (422).
   */
  integrationFromHeader?: boolean;
  schema: S;
  upstream: {
    method: UpstreamMethod;
    /** Upstream path template; `{name}` is filled from the path parameter of that name, percent-encoded. */
    path: string;
    /** Send `integration_id` as the `X-Integration-Id` header (ATS operations and force-sync). */
    integrationHeader: boolean;
    /** Query parameters whose upstream name differs (spec name → upstream name); others keep their name. */
    rename?: Record<string, string>;
    /** Query parameters the proxy acts on itself and does not forward (`integration_id` never is). */
    consumes?: readonly string[];
    /** Which request body goes upstream: the validated body (default) or a fixed empty object. */
    body?: "request" | "empty-object";
  };
  /** Reads are retried on 429/5xx/connection failures; writes only when nothing reached the upstream. */
  kind: "read" | "write";
  /** Caching, for the description. */
  cache?: string;
};

/** `/integrations/{integration_id}` → `/integrations/:integration_id` for Fastify. */
export const fastifyPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

/** What the route of an operation receives, typed from its contract (an input without a schema is whatever was sent). */
export type OperationInput<S extends OperationSchema> = {
  Params: S["params"] extends TObject ? Static<S["params"]> : Record<string, unknown>;
  Querystring: S["querystring"] extends TObject ? Static<S["querystring"]> : Record<string, unknown>;
  Body: S["body"] extends TSchema ? Static<S["body"]> : unknown;
};
export type OperationRequest<S extends OperationSchema> = FastifyRequest<OperationInput<S>>;
/** The request of any operation, as the generic forwarding reads it. */
export type AnyOperationRequest = FastifyRequest<{ Params: Record<string, unknown>; Querystring: Record<string, unknown>; Body: unknown }>;
