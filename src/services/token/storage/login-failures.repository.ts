import { eq, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { tokenLoginFailures } from "./token.tables.js";

export type FailurePolicy = {
  maxFailures: number;
  lockoutSeconds: number;
  /** Failures further apart than this do not add up (Keycloak's "failure reset time"). */
  resetAfterSeconds: number;
};

const T = "token_login_failures";
/** A Date as a typed SQL parameter (raw fragments get no column-based mapping). */
const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/** Brute-force counters per user: consecutive failed logins and the lock they lead to. */
export function loginFailuresRepository(db: Queryable) {
  return {
    /** The user's counter, or null when there is no failure on record. */
    async state(userId: string, tx: Queryable = db): Promise<{ failures: number; lockedUntil: Date | null } | null> {
      const rows = await tx
        .select({ failures: tokenLoginFailures.failures, lockedUntil: tokenLoginFailures.lockedUntil })
        .from(tokenLoginFailures)
        .where(eq(tokenLoginFailures.userId, userId));
      return rows[0] ?? null;
    },

    /**
     * Counts one failure in a single statement (concurrent failures all count) and locks the user
     * when the count reaches the limit. After a lock has run out, or after a long quiet spell, the
     * count starts again from one.
     */
    async recordFailure(userId: string, now: Date, policy: FailurePolicy, tx: Queryable = db): Promise<{ locked: boolean }> {
      const lockUntil = new Date(now.getTime() + policy.lockoutSeconds * 1000);
      const resetBefore = new Date(now.getTime() - policy.resetAfterSeconds * 1000);
      // Columns qualified by table name: inside ON CONFLICT they mean the existing row.
      const startsOver = sql`(${sql.raw(`${T}.last_failure_at`)} < ${ts(resetBefore)} or (${sql.raw(`${T}.locked_until`)} is not null and ${sql.raw(`${T}.locked_until`)} <= ${ts(now)}))`;
      const count = sql`case when ${startsOver} then 1 else ${sql.raw(`${T}.failures`)} + 1 end`;
      const rows = await tx
        .insert(tokenLoginFailures)
        .values({ userId, failures: 1, lastFailureAt: now, lockedUntil: policy.maxFailures <= 1 ? lockUntil : null })
        .onConflictDoUpdate({
          target: tokenLoginFailures.userId,
          set: {
            failures: count,
            lastFailureAt: now,
            lockedUntil: sql`case when ${count} >= ${policy.maxFailures} then ${ts(lockUntil)}
              when ${sql.raw(`${T}.locked_until`)} > ${ts(now)} then ${sql.raw(`${T}.locked_until`)} else null end`,
          },
        })
        .returning({ lockedUntil: tokenLoginFailures.lockedUntil });
      const until = rows[0]?.lockedUntil;
      return { locked: until !== null && until !== undefined && until.getTime() > now.getTime() };
    },

    async reset(userId: string, tx: Queryable = db): Promise<void> {
      await tx.delete(tokenLoginFailures).where(eq(tokenLoginFailures.userId, userId));
    },
  };
}
export type LoginFailuresRepository = ReturnType<typeof loginFailuresRepository>;
