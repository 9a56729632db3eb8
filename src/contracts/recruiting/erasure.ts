import { type Static, Type } from "@sinclair/typebox";
import { Uuid } from "../common.js";
import { OrNull } from "./fields.js";

/** What the ATS still holds after an erasure: said in every erasure's answer (docs/privacy.md, "Erasure"). */
export const ATS_COPY_NOTICE =
  "The ATS keeps its own copy of the application and the candidate: erase them there too (Hirebridge does not delete upstream data).";

export const EraseCandidateQuerySchema = Type.Object({
  reason: Type.Optional(
    Type.String({ maxLength: 500, description: "Why the candidate is erased (kept in the tombstone; write no personal data here)." }),
  ),
});

export const CandidateErasureSchema = Type.Object(
  {
    erased: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description:
        "Rows erased or redacted, by kind: candidates, interviews, write_backs, activity, webhook_events, webhook_messages, webhook_attempts, webhook_deliveries, idempotency_keys, sync_runs, integration_health, assessment_orders.",
    }),
    suppression_id: OrNull(
      Uuid({
        description: "The suppression that keeps the sync from re-creating the candidate; DELETE …/erasure-suppressions/{id}/ lifts it.",
      }),
    ),
    ats_copy: Type.String({ description: "What Hirebridge did not erase: the ATS's own copy." }),
  },
  { title: "CandidateErasure" },
);
export type CandidateErasure = Static<typeof CandidateErasureSchema>;

export const SuppressionParamsSchema = Type.Object({
  org_id: Uuid({ description: "Organization id; must equal the token's org_id." }),
  suppression_id: Uuid({ description: "Suppression id (an erasure's `suppression_id`)." }),
});

export const SuppressionLiftedSchema = Type.Object({ lifted: Type.Literal(true) }, { title: "ErasureSuppressionLifted" });

export const PositionErasureSchema = Type.Object(
  {
    erased: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description:
        "Rows erased or redacted, by kind: positions (1), candidates, interviews, write_backs, activity, webhook_events, webhook_messages, webhook_attempts, webhook_deliveries, idempotency_keys, sync_runs, integration_health, assessment_orders.",
    }),
    ats_copy: Type.String({ description: "What Hirebridge did not erase: the ATS's own copy." }),
  },
  { title: "PositionErasure" },
);
export type PositionErasure = Static<typeof PositionErasureSchema>;
