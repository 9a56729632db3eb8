import { type Static, Type } from "@sinclair/typebox";
import { OrNull } from "./fields.js";

/** Days, as the policy counts them: 0 means "at the next retention run". At most ten years. */
const days = (description: string) => Type.Integer({ minimum: 0, maximum: 3650, description });

/**
 * An organisation's data retention policy (GET/PUT /org/{org_id}/data-retention, docs/privacy.md):
 * how long candidates are kept, and when the data of a deleted integration or of an application
 * deleted upstream is erased. A candidate is erased by the first rule that makes it due.
 */
export const DataRetentionSchema = Type.Object(
  {
    candidate_days_after_last_change: OrNull(
      days("Erase a candidate this many days after its last change (updated_at). null (the default): never for this reason."),
    ),
    candidate_days_after_rejection: OrNull(
      days("Erase a rejected candidate this many days after its last change. null (the default): never for this reason."),
    ),
    candidate_days_after_hire: OrNull(
      days("Erase a hired candidate this many days after its last change. null (the default): never for this reason."),
    ),
    deleted_integration_days: days(
      "Erase the candidates linked to a deleted integration this many days after it was deleted (default 14, as the upstream does).",
    ),
    deleted_application_days: days(
      "Erase a candidate whose upstream application was deleted this many days after the deletion (default 14, as the upstream does).",
    ),
  },
  { additionalProperties: false },
);
export type DataRetention = Static<typeof DataRetentionSchema>;

/** The policy as GET and PUT answer it. */
export const DataRetentionResponseSchema = Type.Object(
  {
    ...DataRetentionSchema.properties,
    updated_at: OrNull(Type.String({ format: "date-time", description: "When the policy was last set; null while it has its defaults." })),
  },
  { additionalProperties: false, description: "The organization's data retention policy." },
);
export type DataRetentionResponse = Static<typeof DataRetentionResponseSchema>;

/** PUT's body: the fields sent change, the others keep their value. */
export const DataRetentionUpdateSchema = Type.Partial(DataRetentionSchema, { additionalProperties: false });
export type DataRetentionUpdate = Static<typeof DataRetentionUpdateSchema>;

/** The policy of an organisation that never set one. */
export const DEFAULT_DATA_RETENTION: DataRetention = {
  candidate_days_after_last_change: null,
  candidate_days_after_rejection: null,
  candidate_days_after_hire: null,
  deleted_integration_days: 14,
  deleted_application_days: 14,
};
