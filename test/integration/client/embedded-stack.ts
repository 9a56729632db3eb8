import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serviceUrls } from "../../../src/shared/config.js";
import type { Config } from "../../../src/runtime/config.js";
import { SERVICE_ORDER, startStack, type RunningStack } from "../../../src/runtime/stack.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";

export type EmbeddedStack = {
  config: Config;
  authUrl: string;
  apiUrl: string;
  proxyUrl: string;
  sandboxOrigin: string;
  demo: { username: string; password: string; orgId: string; integrationId: string };
  adminPassword: string;
  stack: RunningStack;
  close(): Promise<void>;
};

/**
 * Every service exactly as `npm start` runs it (token service with the demo user, sandbox with
 * the demo integration, recruiting API, proxy), through the real launcher, on free loopback ports
 * over a fresh in-memory database.
 */
export async function startEmbeddedStack(): Promise<EmbeddedStack> {
  const dataDir = await mkdtemp(join(tmpdir(), "hirebridge-sdk-"));
  const config = testConfig({
    HOST: "127.0.0.1",
    AUTH_PORT: await freePort(),
    API_PORT: await freePort(),
    PROXY_PORT: await freePort(),
    SANDBOX_PORT: await freePort(),
    DATA_DIR: dataDir,
    PASSWORD_HASH_MEMORY_KIB: 1024,
    PASSWORD_HASH_PASSES: 1, // test-speed hashing; same code path
    SANDBOX_APPLICATIONS: 40,
  });
  const database = await freshDatabase("pglite");
  // The operator console (static files of its own build) has its own end-to-end test.
  const stack = await startStack(
    config,
    SERVICE_ORDER.filter((s) => s !== "console"),
    silentLogger(),
    { database },
  );
  const urls = serviceUrls(config);
  const integrations = (await (await fetch(`${urls.sandboxOrigin}/sandbox/integrations`)).json()) as { demo_integration_id: string };
  return {
    config,
    authUrl: urls.authUrl,
    apiUrl: urls.api,
    proxyUrl: urls.proxy,
    sandboxOrigin: urls.sandboxOrigin,
    demo: { username: "demo", password: config.DEMO_PASSWORD, orgId: config.DEMO_ORG_ID, integrationId: integrations.demo_integration_id },
    adminPassword: config.ADMIN_PASSWORD,
    stack,
    close: async () => {
      await stack.close();
      await database.dispose();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
