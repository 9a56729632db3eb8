import { type Static, Type } from "@sinclair/typebox";
import { Cursor, INTEGRATION_FIELDS_PAGE_SIZE_MAX, OptionalNullable, PAGE_SIZE_MAX, PageSize, StringEnum } from "./common.js";

/** Integration management (spec: Integrations). Path parameters are strings. */

export const IntegrationParamsSchema = Type.Object({ integration_id: Type.String({ description: "Id of the integration." }) });
export type IntegrationParams = Static<typeof IntegrationParamsSchema>;

export const GetIntegrationQuerySchema = Type.Object({
  bypass_cache: Type.Optional(
    Type.Boolean({ default: false, description: "Fetch fresh data instead of cached data (and refresh the cache)." }),
  ),
});
export type GetIntegrationQuery = Static<typeof GetIntegrationQuerySchema>;

export const LANGUAGES = ["en", "de", "fr", "it", "es"] as const;
export const LINK_TYPES = ["EMBEDDED", "MAGIC_LINK"] as const;

/** RelinkRequest: the body itself is required; every property is optional. */
export const RelinkRequestSchema = Type.Object(
  {
    language: OptionalNullable(StringEnum(LANGUAGES), { default: "en", description: "Language of the connection-flow UI." }),
    scope_config_id: OptionalNullable(Type.String()),
    link_type: OptionalNullable(StringEnum(LINK_TYPES), {
      default: "EMBEDDED",
      description: "EMBEDDED is for an SDK; MAGIC_LINK is for manual sending.",
    }),
  },
  { title: "RelinkRequest" },
);
export type RelinkRequest = Static<typeof RelinkRequestSchema>;

export const IntegrationFieldsQuerySchema = Type.Object({
  cursor: Cursor,
  page_size: PageSize(INTEGRATION_FIELDS_PAGE_SIZE_MAX),
});
export type IntegrationFieldsQuery = Static<typeof IntegrationFieldsQuerySchema>;

export const IntegrationFieldParamsSchema = Type.Object({
  integration_id: Type.String(),
  field_id: Type.String(),
});
export type IntegrationFieldParams = Static<typeof IntegrationFieldParamsSchema>;

/** When enable_passthrough is true, the field is passed as part of the integration_fields array. */
export const IntegrationFieldUpdateSchema = Type.Object(
  {
    enable_passthrough: Type.Boolean({
      description: "When true, the field is passed as part of the integration_fields array.",
    }),
  },
  { title: "IntegrationFieldUpdate" },
);
export type IntegrationFieldUpdate = Static<typeof IntegrationFieldUpdateSchema>;

export const CustomFieldsQuerySchema = Type.Object({
  cursor: Cursor,
  page_size: PageSize(PAGE_SIZE_MAX),
});
export type CustomFieldsQuery = Static<typeof CustomFieldsQuerySchema>;

export const CustomFieldParamsSchema = Type.Object({
  integration_id: Type.String(),
  custom_field_id: Type.String(),
});
export type CustomFieldParams = Static<typeof CustomFieldParamsSchema>;

export const CustomFieldMappingSchema = Type.Object({ integration_field_id: Type.String() }, { title: "CustomFieldMapping" });
export type CustomFieldMapping = Static<typeof CustomFieldMappingSchema>;
