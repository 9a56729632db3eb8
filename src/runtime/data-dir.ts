import { resolve } from "node:path";
import { sandboxStateDir } from "../services/sandbox/store/persistence.js";

/**
 * What the embedded stack keeps under DATA_DIR, for commands that manage it as a whole (`hirebridge
 * reset`): Hirebridge's PGlite database and the sandbox's state go together so the two sides never
 * disagree. The launcher owns this list because it is the one place that knows every service.
 */
export const embeddedStorage = (dataDir: string) => [
  { what: "Hirebridge's database (PGlite)", path: resolve(dataDir, "pglite") },
  { what: "the upstream sandbox's state", path: resolve(sandboxStateDir(dataDir)) },
];
