// Hirebridge runs on the Node.js it pins (the `node` devDependency, Node 24), which every npm script
// and `npx hirebridge` put first on the PATH. A bin started by another Node (the machine's, e.g.
// after `npm link`) hands over to the pinned one instead of failing on what older versions lack.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const REQUIRED_MAJOR = 24;

if (Number(process.versions.node.split(".")[0]) < REQUIRED_MAJOR) {
  const pinned = fileURLToPath(new URL("../node_modules/node/bin/node", import.meta.url));
  if (!existsSync(pinned)) {
    process.stderr.write(
      `hirebridge: needs Node.js ${REQUIRED_MAJOR} (this is ${process.version}); \`npm install\` in the checkout installs it\n`,
    );
    process.exit(1);
  }
  const run = spawnSync(pinned, process.argv.slice(1), { stdio: "inherit" });
  process.exit(run.status ?? 1);
}
