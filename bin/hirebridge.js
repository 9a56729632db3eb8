#!/usr/bin/env node
// Runs the TypeScript entry point through tsx, so the package works from a checkout without a build step.
import "./runtime.js"; // first: hands over to the pinned Node.js when started by an older one
import { register } from "tsx/esm/api";
register();
await import("../src/cli/main.ts");
