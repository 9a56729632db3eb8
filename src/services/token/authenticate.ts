import { hashPassword, needsRehash, verifyPassword } from "./password-hash.js";
import type { Realm } from "./realms.js";
import type { UserRow } from "./storage/token.tables.js";
import type { TokenContext } from "./token-context.js";
import { invalidCredentials, invalidGrant } from "./token-errors.js";

/** Failures further apart than Keycloak's default "failure reset time" (12 h) do not add up. */
const FAILURE_RESET_SECONDS = 12 * 60 * 60;

/**
 * Checks a username and password the way Keycloak's direct grant does, with its brute-force
 * detection. An unknown username, a wrong password and a temporarily locked account all answer the
 * same 401 "Invalid user credentials", and all three run one full password verification (argon2id), so neither
 * the answer nor its timing tells an attacker which usernames exist or which are locked.
 * Only after the right password do we say more (disabled, or a temporary password to change).
 */
export async function authenticate(ctx: TokenContext, realm: Realm, username: string, password: string): Promise<UserRow> {
  const now = new Date(ctx.now());
  const user = await ctx.users.findByUsername(realm.name, username);
  if (!user?.passwordHash) {
    await verifyPassword(password, await ctx.dummyHash());
    throw invalidCredentials();
  }
  const failures = await ctx.failures.state(user.id);
  const locked = (failures?.lockedUntil?.getTime() ?? 0) > now.getTime();
  const matches = await verifyPassword(password, user.passwordHash);
  if (locked) {
    // While locked even the right password fails, and failures do not extend the lock.
    throw invalidCredentials();
  }
  if (!matches) {
    const { locked: nowLocked } = await ctx.failures.recordFailure(user.id, now, {
      maxFailures: ctx.config.BRUTE_FORCE_MAX_FAILURES,
      lockoutSeconds: ctx.config.BRUTE_FORCE_LOCKOUT_SECONDS,
      resetAfterSeconds: FAILURE_RESET_SECONDS,
    });
    if (nowLocked) ctx.logger.warn({ realm: realm.name, userId: user.id }, "user temporarily locked after repeated failed logins");
    throw invalidCredentials();
  }
  if (failures) await ctx.failures.reset(user.id);
  if (!user.enabled) throw invalidGrant("Account disabled");
  if (user.passwordTemporary) throw invalidGrant("Account is not fully set up");
  if (needsRehash(user.passwordHash, ctx.hashParams)) {
    // An older scheme (scrypt) or other parameters than configured: rehash while we know the password.
    await ctx.users.update(realm.name, user.id, { passwordHash: await hashPassword(password, ctx.hashParams) });
  }
  return user;
}
