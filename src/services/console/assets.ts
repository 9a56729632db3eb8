import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** A built file served from memory: the console is a few hundred kilobytes, read once at start. */
export type Asset = { body: Buffer; type: string; etag: string };

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
  ".map": "application/json",
};

/** The package's root (the folder holding package.json), however deep this module is built into. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("package.json not found above the console service");
    dir = up;
  }
  return dir;
}

export const defaultConsoleDist = () => resolve(packageRoot(), "console", "dist");

/**
 * Reads the built console: `index.html` and every file under `assets/` (hashed names). A missing
 * build is a clear start-up error rather than a console answering 404.
 */
export function loadConsoleAssets(distDir: string): { index: Asset; assets: Map<string, Asset> } {
  const indexPath = join(distDir, "index.html");
  if (!existsSync(indexPath)) {
    throw new Error(`The console is not built (${indexPath} is missing): run \`npm run build:console\` (npm start does it first)`);
  }
  const read = (path: string): Asset => {
    const body = readFileSync(path);
    const ext = path.slice(path.lastIndexOf("."));
    return {
      body,
      type: TYPES[ext] ?? "application/octet-stream",
      etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
    };
  };
  const assets = new Map<string, Asset>();
  const dir = join(distDir, "assets");
  if (existsSync(dir)) {
    for (const name of readdirSync(dir)) if (statSync(join(dir, name)).isFile()) assets.set(name, read(join(dir, name)));
  }
  return { index: read(indexPath), assets };
}
