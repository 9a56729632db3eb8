// Hirebridge runs on the Node.js it pins (the `node` devDependency, Node 24), which every npm script
// and `npx hirebridge` put first on the PATH. A bin started by another Node (the machine's, e.g.
// after `npm link`) hands over to the pinned one instead of failing on what older versions lack.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { constants } from "node:os";
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
  const child = spawn(pinned, process.argv.slice(1), { stdio: "inherit" });
  // This process stays until the command has finished (a command cleaning up on a signal, such as
  // `webhooks listen` deleting its endpoint, is not cut short by the shell's prompt coming back).
  // Ctrl-C reaches the whole foreground process group, the command included: here it is only
  // ignored (sending it again would make a second Ctrl-C of `serve` out of one). SIGTERM and SIGHUP
  // are often sent to this process alone (`kill`, a supervisor): they are passed on.
  process.on("SIGINT", () => {});
  for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  const [code, signal] = await once(child, "exit");
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
}
