#!/usr/bin/env node
// Runs the compiled CLI (dist/, from `npm run build`, which `npm start` runs first and the image
// ships). In a checkout whose dist/ is missing or older than a source file, it runs the TypeScript
// sources through tsx (a development dependency) instead, so a stale build never answers.
import "./runtime.js"; // first: hands over to the pinned Node.js when started by an older one
import { existsSync, readdirSync, statSync } from "node:fs";

const root = new URL("../", import.meta.url);
const compiled = new URL("dist/cli/main.js", root);
// `npm run build` touches this after every build, whether tsc had anything to emit or not.
const builtAt = new URL("dist/.tsbuildinfo.server", root);

function compiledIsCurrent() {
  if (!existsSync(compiled)) return false;
  const src = new URL("src/", root);
  if (!existsSync(src)) return true; // an installed package or the image: dist/ only
  if (!existsSync(builtAt)) return false;
  const built = statSync(builtAt).mtimeMs;
  return readdirSync(src, { recursive: true, encoding: "utf8" }).every(
    (file) => !file.endsWith(".ts") || statSync(new URL(file, src)).mtimeMs <= built,
  );
}

if (compiledIsCurrent()) {
  await import(compiled.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
