#!/usr/bin/env node
// Runs the TypeScript entry point through tsx, so the package works from a checkout without a build step.
import { register } from "tsx/esm/api";
register();
await import("../src/cli/main.ts");
