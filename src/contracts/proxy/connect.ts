import { type Static, Type } from "@sinclair/typebox";
import { OptionalNullable, StringEnum } from "./common.js";
import { LANGUAGES, LINK_TYPES } from "./integrations.js";

/** Connect (spec: Connect), plus the activation step the spec leaves out. */

export const INTEGRATION_CATEGORIES = ["HRIS", "ATS", "ASSESSMENT"] as const;

export const ConnectCreateLinkRequestSchema = Type.Object(
  {
    end_user_email: Type.String({ description: "Email of the user the link is meant for." }),
    end_user_organization_name: Type.String({ description: "Name of the user's organization." }),
    end_user_origin_id: OptionalNullable(Type.String(), {
      description:
        "Identifier of the organization in the caller's own system. Hirebridge sets it to the caller's organisation; naming another one is refused (403).",
    }),
    remote_environment: OptionalNullable(Type.String()),
    integration_category: OptionalNullable(StringEnum(INTEGRATION_CATEGORIES), {
      default: "HRIS",
      description: "Category of integration.",
    }),
    integration_tool: OptionalNullable(Type.String(), { description: "Pre-selects a specific tool for the link." }),
    language: OptionalNullable(StringEnum(LANGUAGES), { default: "en", description: "Language of the connection-flow UI." }),
    scope_config_id: OptionalNullable(Type.String()),
    enable_filtering: OptionalNullable(Type.Boolean(), { default: false, description: "Filtering feature; HRIS only." }),
    enable_field_mapping: OptionalNullable(Type.Boolean(), { default: false, description: "Field mapping feature." }),
    link_type: OptionalNullable(StringEnum(LINK_TYPES), {
      default: "EMBEDDED",
      description: "EMBEDDED is for an SDK; MAGIC_LINK is for manual sending.",
    }),
  },
  { title: "ConnectCreateLinkRequest" },
);
export type ConnectCreateLinkRequest = Static<typeof ConnectCreateLinkRequestSchema>;

/**
 * The last step of the embedded connect flow: the front end hands over the activation token the
 * connect UI resolved with; the proxy exchanges it upstream and records the integration.
 */
export const ConnectActivateRequestSchema = Type.Object(
  { activation_token: Type.String({ minLength: 1, description: "The token the embedded connect flow resolved with." }) },
  { title: "ConnectActivateRequest" },
);
export type ConnectActivateRequest = Static<typeof ConnectActivateRequestSchema>;
