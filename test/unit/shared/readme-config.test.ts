import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ConfigSchema } from "../../../src/shared/config.js";
import { configTable } from "../../../src/shared/config-doc.js";

test("README's configuration table is the one generated from the config schema", () => {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
  const block = readme.split("<!-- config:start -->")[1]?.split("<!-- config:end -->")[0]?.trim();
  assert.equal(block, configTable(ConfigSchema), "run `npm run docs:config` to refresh README.md");
});
