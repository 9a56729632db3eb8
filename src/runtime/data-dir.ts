import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sandboxStateDir } from "../services/sandbox/store/persistence.js";
import type { BaseConfig as Config } from "../shared/config.js";

/** The Hirebridge checkout (or installed package) this code runs from: src/runtime/ and dist/runtime/ are both two levels down. */
export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * DATA_DIR as an absolute path. A relative one is relative to the Hirebridge checkout, not to the
 * current directory: `npm start` (which runs in the checkout), `npx hirebridge …` and a linked
 * `hirebridge` run from anywhere all find the same data.
 */
export const dataDirOf = (config: Pick<Config, "DATA_DIR">): string =>
  isAbsolute(config.DATA_DIR) ? config.DATA_DIR : resolve(PACKAGE_ROOT, config.DATA_DIR);

/**
 * What the embedded stack keeps under DATA_DIR, for commands that manage it as a whole (`hirebridge
 * reset`): Hirebridge's PGlite database and the sandbox's state go together so the two sides never
 * disagree. The launcher owns this list because it is the one place that knows every service.
 */
export const embeddedStorage = (dataDir: string) => [
  { what: "Hirebridge's database (PGlite)", path: resolve(dataDir, "pglite") },
  { what: "the upstream sandbox's state", path: resolve(sandboxStateDir(dataDir)) },
];
