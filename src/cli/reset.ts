import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { BaseConfigSchema, loadConfig, serviceUrls } from "../shared/config.js";
import { dataDirOf, embeddedStorage, PACKAGE_ROOT } from "../runtime/data-dir.js";
import { checkDataDirFree, StartupError } from "../runtime/startup-checks.js";
import { CliError, EXIT } from "./cli-errors.js";
import type { CliContext } from "./context.js";
import { confirm } from "./prompt.js";

/** Does anything answer on a service's port? A running stack holds the database open. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

/**
 * `hirebridge reset`: deletes the embedded stack's data (Hirebridge's PGlite database with its users,
 * signing keys, positions and sync state, and the sandbox's integrations and written-back changes)
 * so the next start begins from the seed. Refuses while the stack is running, and for a real
 * Postgres (DATABASE_URL), which it never touches.
 */
export async function reset(ctx: CliContext, yes: boolean): Promise<number> {
  const config = loadConfig(BaseConfigSchema, ctx.io.env);
  if (config.DATABASE_URL) {
    throw new CliError("DATABASE_URL is set: reset only wipes the embedded storage under DATA_DIR, never a real Postgres", EXIT.USAGE);
  }
  const urls = serviceUrls(config);
  const running = (await Promise.all([new URL(urls.api).origin, urls.sandboxOrigin].map((o) => answers(`${o}/healthz`)))).some(Boolean);
  if (running) throw new CliError("The stack is running: stop it (Ctrl-C or SIGTERM) before reset", EXIT.FAILURE);
  const dataDir = dataDirOf(config);
  try {
    checkDataDirFree({ ...config, DATA_DIR: dataDir });
  } catch (err) {
    if (err instanceof StartupError) throw new CliError(`The stack is running: stop it before reset. ${err.message}`, EXIT.FAILURE);
    throw err;
  }
  const targets = embeddedStorage(dataDir).filter((t) => existsSync(t.path));
  if (targets.length === 0) {
    const relative = isAbsolute(config.DATA_DIR) ? "" : ` (DATA_DIR ${config.DATA_DIR}, relative to the checkout ${PACKAGE_ROOT})`;
    ctx.out.note(
      `Nothing to reset: no Hirebridge data under ${dataDir}${relative}. If the stack keeps its data elsewhere, set DATA_DIR to that directory.`,
    );
    return EXIT.OK;
  }
  const list = targets.map((t) => `  ${t.what}: ${t.path}`).join("\n");
  if (!yes) {
    const ok = await confirm(ctx.terminal, `This deletes:\n${list}\nContinue?`);
    if (!ok) throw new CliError("Nothing deleted: not confirmed (pass --yes to skip the question)", EXIT.FAILURE);
  }
  for (const t of targets) await rm(t.path, { recursive: true, force: true });
  ctx.out.note(`Deleted:\n${list}\nThe next start begins from the seed (demo user, demo integration).`);
  return EXIT.OK;
}
