import { createUser } from "./admin/users.service.js";
import { ADMIN_USERNAME } from "./realms.js";
import type { TokenContext } from "./token-context.js";
import { KeycloakError } from "./token-errors.js";

export const DEMO_USERNAME = "demo";
export const DEMO_EMAIL = "demo@hirebridge.local";

/**
 * First start (idempotent, safe when several instances start together): a signing key, a refresh
 * token key, the `master` realm's `admin` user with ADMIN_PASSWORD, and the demo user of the run
 * contract in the demo organisation. Both users go through the same code path as the admin API. As with Keycloak's
 * bootstrap admin, an existing user is left as it is: changing ADMIN_PASSWORD later does not reset it.
 */
export async function bootstrap(ctx: TokenContext): Promise<void> {
  await ctx.keys.ensureKey();
  await ctx.refreshKeys.ensureKey();
  const { config, realms } = ctx;
  await ensureUser(ctx, realms.master.name, ADMIN_USERNAME, {
    username: ADMIN_USERNAME,
    enabled: true,
    credentials: [{ type: "password", value: config.ADMIN_PASSWORD, temporary: false }],
  });
  await ensureUser(ctx, realms.app.name, DEMO_USERNAME, {
    username: DEMO_USERNAME,
    email: DEMO_EMAIL,
    emailVerified: true,
    firstName: "Demo",
    lastName: "User",
    enabled: true,
    attributes: { org_id: [config.DEMO_ORG_ID] },
    credentials: [{ type: "password", value: config.DEMO_PASSWORD, temporary: false }],
  });
}

async function ensureUser(ctx: TokenContext, realm: string, username: string, rep: Parameters<typeof createUser>[2]) {
  if (await ctx.users.findByUsername(realm, username)) return;
  try {
    await createUser(ctx, realm, rep);
    ctx.logger.info({ realm, username }, "created user on first start");
  } catch (err) {
    // Another instance created it between our look and our insert.
    if (!(err instanceof KeycloakError && err.statusCode === 409)) throw err;
  }
}
