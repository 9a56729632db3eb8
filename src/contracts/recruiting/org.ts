import { type Static, Type } from "@sinclair/typebox";
import { Uuid } from "../common.js";

const id = (description: string) => Uuid({ description });

export const OrgIdResponseSchema = Type.Object(
  { org_id: Type.String({ description: "The caller's organization (the token's org_id claim)." }) },
  { additionalProperties: false },
);
export type OrgIdResponse = Static<typeof OrgIdResponseSchema>;

export const OrgParamsSchema = Type.Object({ org_id: id("Organization id; must equal the token's org_id.") });
export type OrgParams = Static<typeof OrgParamsSchema>;

export const PositionParamsSchema = Type.Object({
  org_id: id("Organization id; must equal the token's org_id."),
  position_id: id("Position id."),
});
export type PositionParams = Static<typeof PositionParamsSchema>;

export const CandidateParamsSchema = Type.Object({
  org_id: id("Organization id; must equal the token's org_id."),
  position_id: id("Position id."),
  candidate_id: id("Candidate id."),
});
export type CandidateParams = Static<typeof CandidateParamsSchema>;
