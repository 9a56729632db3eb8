import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ConfigSchema } from "../../../src/shared/config.js";
import { configTable } from "../../../src/shared/config-doc.js";

for (const doc of ["README.md", "docs/operations.md"]) {
  test(`${doc}'s configuration table is the one generated from the config schema`, () => {
    const text = readFileSync(new URL(`../../../${doc}`, import.meta.url), "utf8");
    const block = text.split("<!-- config:start -->")[1]?.split("<!-- config:end -->")[0]?.trim();
    assert.equal(block, configTable(ConfigSchema), `run \`npm run docs:config\` to refresh ${doc}`);
  });
}
