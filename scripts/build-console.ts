/**
 * Builds the operator console (console/src → console/dist): one esbuild bundle of the Preact app
 * and the project's own SDK (src/client), minified, with content-hashed file names so the console
 * service can cache them for a year, and an index.html that loads them (no inline script or style,
 * so the page's CSP needs no exception). Run by `npm start` (prestart), `npm test` (pretest) and CI.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "console", "dist");

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
const result = await build({
  entryPoints: { console: join(root, "console", "src", "main.tsx") },
  bundle: true,
  minify: true,
  sourcemap: false,
  format: "esm",
  target: ["es2022"],
  platform: "browser",
  jsx: "automatic",
  jsxImportSource: "preact",
  outdir: join(outdir, "assets"),
  entryNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
  tsconfigRaw: { compilerOptions: { jsx: "react-jsx", jsxImportSource: "preact" } },
});
const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const script = outputs.find((f) => f.endsWith(".js"));
const style = outputs.find((f) => f.endsWith(".css"));
if (!script || !style) throw new Error(`console build produced ${outputs.join(", ")}`);
await writeFile(
  join(outdir, "index.html"),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Hirebridge console</title>
<link rel="stylesheet" href="/assets/${style}">
<script type="module" src="/assets/${script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The Hirebridge console needs JavaScript.</noscript>
</body>
</html>
`,
);
process.stdout.write(`console built: console/dist/assets/${script}, ${style}\n`);
