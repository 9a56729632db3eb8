import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { CONFIG_SLICES, ConfigSchema } from "../../../src/runtime/config.js";
import { configTable } from "../../../src/shared/config-doc.js";

for (const doc of ["README.md", "docs/operations.md"]) {
  test(`${doc}'s configuration table is the one generated from the config schema`, () => {
    const text = readFileSync(new URL(`../../../${doc}`, import.meta.url), "utf8");
    const block = text.split("<!-- config:start -->")[1]?.split("<!-- config:end -->")[0]?.trim();
    assert.equal(block, configTable(CONFIG_SLICES), `run \`npm run docs:config\` to refresh ${doc}`);
  });
}

test("the configuration reference lists every variable once, and each slice's variables are its own", () => {
  const listed = CONFIG_SLICES.flatMap((s) => Object.keys(s.schema.properties));
  assert.equal(new Set(listed).size, listed.length, "a variable is declared in two slices");
  assert.deepEqual([...listed].sort(), Object.keys(ConfigSchema.properties).sort());
});
