import { randomBytes } from "node:crypto";

/**
 * A candidate's interview link: the configured base plus 192 random bits, so a link can be neither
 * guessed nor derived from the candidate's or interview's id.
 */
export function newInterviewLink(base: string): string {
  return `${base.replace(/\/+$/, "")}/${randomBytes(24).toString("base64url")}`;
}
