import { type Static, Type } from "@sinclair/typebox";
import { Nullable } from "../common.js";
import { IntegrationIdQuery, OptionalNullable, StringEnum } from "./common.js";

/** General operations (spec: General). */

export const CheckApiKeyQuerySchema = Type.Object({ integration_id: IntegrationIdQuery });
export type CheckApiKeyQuery = Static<typeof CheckApiKeyQuerySchema>;

export const SYNC_TYPES = ["FULL", "DELTA"] as const;
export const ForceSyncQuerySchema = Type.Object({
  integration_id: IntegrationIdQuery,
  type: OptionalNullable(Type.String({ pattern: "^(FULL|DELTA)$" }), {
    default: "DELTA",
    description: "FULL or DELTA; default DELTA.",
  }),
});
export type ForceSyncQuery = Static<typeof ForceSyncQuerySchema>;

/** Optional JSON object with arbitrary properties, or null. */
export const ForceSyncBodySchema = Nullable(Type.Object({}, { additionalProperties: true }), {
  description: "Optional JSON object with arbitrary properties, or null.",
});
export type ForceSyncBody = Static<typeof ForceSyncBodySchema>;

export const TOOL_CATEGORIES = ["hris", "ats", "assessment"] as const;
export const ToolsParamsSchema = Type.Object({
  category: StringEnum(TOOL_CATEGORIES, { description: "hris, ats or assessment." }),
});
export type ToolsParams = Static<typeof ToolsParamsSchema>;
