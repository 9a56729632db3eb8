import type { CredentialRepresentation, UserRepresentation, UserRepresentationInput } from "../../../contracts/token.js";
import { hashPassword } from "../password-hash.js";
import type { SessionEndReason, UserAttributes, UserRow } from "../storage/token.tables.js";
import type { TokenContext } from "../token-context.js";
import { adminBadRequest, adminConflict, adminError } from "../token-errors.js";

/**
 * User management behind the admin REST API (and the start-up seeding, which uses the same code
 * path). Semantics follow Keycloak: usernames are lower-cased, attributes are string arrays, a user
 * created without `enabled: true` is disabled, duplicate usernames and emails answer 409.
 */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const userNotFound = () => adminError(404, "User not found");

function normaliseAttributes(input: Record<string, string[] | string> | undefined): UserAttributes {
  const out: UserAttributes = {};
  for (const [name, value] of Object.entries(input ?? {})) out[name] = Array.isArray(value) ? value : [value];
  return out;
}

function checkEmail(email: string | null | undefined): string | null {
  if (email === undefined || email === null || email === "") return null;
  if (!EMAIL.test(email)) throw adminBadRequest("Invalid email address.");
  return email;
}

/** Postgres unique_violation, possibly wrapped by Drizzle (`cause`). */
function uniqueViolation(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e !== null && typeof e === "object" && depth < 5; depth++) {
    if ((e as { code?: unknown }).code === "23505") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function passwordOf(credentials: CredentialRepresentation[] | undefined): CredentialRepresentation | undefined {
  return credentials?.find((c) => (c.type ?? "password") === "password");
}

export function toRepresentation(user: UserRow): UserRepresentation {
  const rep: UserRepresentation = {
    id: user.id,
    username: user.username,
    emailVerified: user.emailVerified,
    enabled: user.enabled,
    createdTimestamp: user.createdAt.getTime(),
    requiredActions: user.passwordTemporary ? ["UPDATE_PASSWORD"] : [],
  };
  if (user.firstName) rep.firstName = user.firstName;
  if (user.lastName) rep.lastName = user.lastName;
  if (user.email) rep.email = user.email;
  if (Object.keys(user.attributes).length > 0) rep.attributes = user.attributes;
  return rep;
}

export async function createUser(ctx: TokenContext, realm: string, input: UserRepresentationInput): Promise<UserRow> {
  const username = input.username?.trim().toLowerCase();
  if (!username) throw adminBadRequest("User name is missing");
  const email = checkEmail(input.email);
  const password = passwordOf(input.credentials);
  if (password && !password.value) throw adminBadRequest("Password value is missing");
  if (await ctx.users.findByUsername(realm, username)) throw adminConflict("User exists with same username");
  if (email && (await ctx.users.findByEmail(realm, email))) throw adminConflict("User exists with same email");
  const created = await ctx.users
    .insert({
      realm,
      username,
      email,
      emailVerified: input.emailVerified ?? false,
      firstName: input.firstName ?? null,
      lastName: input.lastName ?? null,
      enabled: input.enabled ?? false,
      attributes: normaliseAttributes(input.attributes),
      passwordHash: password ? await hashPassword(password.value, ctx.hashParams) : null,
      passwordTemporary: password?.temporary ?? false,
      createdAt: new Date(ctx.now()),
    })
    .catch((err: unknown) => (uniqueViolation(err) ? null : Promise.reject(err)));
  // Lost a race with a concurrent create of the same username or email.
  if (!created) throw adminConflict("User exists with same username");
  return created;
}

/** PUT: the fields present replace the stored ones (attributes as a whole map, as Keycloak does). */
export async function updateUser(ctx: TokenContext, realm: string, id: string, input: UserRepresentationInput): Promise<void> {
  const user = await ctx.users.findById(realm, id);
  if (!user) throw userNotFound();
  if (input.username !== undefined && input.username.trim().toLowerCase() !== user.username) {
    throw adminBadRequest("error-user-attribute-read-only");
  }
  const patch: Parameters<typeof ctx.users.update>[2] = {};
  if (input.email !== undefined) {
    const email = checkEmail(input.email);
    const owner = email ? await ctx.users.findByEmail(realm, email) : null;
    if (owner && owner.id !== id) throw adminConflict("User exists with same email");
    patch.email = email;
  }
  if (input.emailVerified !== undefined) patch.emailVerified = input.emailVerified;
  if (input.firstName !== undefined) patch.firstName = input.firstName;
  if (input.lastName !== undefined) patch.lastName = input.lastName;
  if (input.enabled !== undefined) patch.enabled = input.enabled;
  if (input.attributes !== undefined) patch.attributes = normaliseAttributes(input.attributes);
  const password = passwordOf(input.credentials);
  if (password) Object.assign(patch, await passwordPatch(ctx, password));
  const found = await ctx.users
    .update(realm, id, patch)
    .catch((err: unknown) => (uniqueViolation(err) ? Promise.reject(adminConflict("User exists with same email")) : Promise.reject(err)));
  if (!found) throw userNotFound();
  // A disabled user's sessions end now, so enabling the user again does not bring them back.
  if (input.enabled === false) await endUserSessions(ctx, id, "disabled");
  else if (password) await passwordChanged(ctx, id);
}

async function passwordPatch(ctx: TokenContext, credential: CredentialRepresentation) {
  if (!credential.value) throw adminBadRequest("Password value is missing");
  return { passwordHash: await hashPassword(credential.value, ctx.hashParams), passwordTemporary: credential.temporary ?? false };
}

/**
 * Sets a new password. A temporary one blocks direct grants until changed ("Account is not fully
 * set up"). The brute-force counter is cleared too: an admin resetting a locked-out user's password
 * means to let them back in.
 */
export async function resetPassword(ctx: TokenContext, realm: string, id: string, credential: CredentialRepresentation): Promise<void> {
  if ((credential.type ?? "password") !== "password") throw adminBadRequest("Only password credentials can be reset");
  const patch = await passwordPatch(ctx, credential);
  if (!(await ctx.users.update(realm, id, patch))) throw userNotFound();
  await ctx.failures.reset(id);
  await passwordChanged(ctx, id);
}

/**
 * What every path that sets a user's password does after it (admin reset, a user update carrying
 * credentials, and any self-service change): with PASSWORD_RESET_ENDS_SESSIONS (the default) the
 * user's sessions end, so a refresh token taken before the change stops working at once. Access
 * tokens already issued stay valid until they expire (at most ACCESS_TOKEN_LIFESPAN).
 */
export async function passwordChanged(ctx: TokenContext, userId: string): Promise<void> {
  if (!ctx.config.PASSWORD_RESET_ENDS_SESSIONS) return;
  const ended = await endUserSessions(ctx, userId, "password_reset");
  if (ended > 0) ctx.logger.info({ userId, sessions: ended }, "password changed: sessions ended");
}

/** Ends every session of the user: their refresh tokens stop working at once. */
export async function logoutUser(ctx: TokenContext, realm: string, id: string): Promise<void> {
  if (!(await ctx.users.findById(realm, id))) throw userNotFound();
  await endUserSessions(ctx, id, "admin_logout");
}

/** Ends every session of the user, the browser's SSO session included (its cookie signs nobody in any more). */
async function endUserSessions(ctx: TokenContext, userId: string, reason: SessionEndReason): Promise<number> {
  const now = new Date(ctx.now());
  await ctx.sso.endAllForUser(userId, reason, now);
  return ctx.sessions.endAllForUser(userId, reason, now);
}

export async function deleteUser(ctx: TokenContext, realm: string, id: string): Promise<void> {
  if (!(await ctx.users.delete(realm, id))) throw userNotFound();
}
