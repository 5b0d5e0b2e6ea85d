#!/usr/bin/env node
// Entry point of `npx pitwall`: runs the TypeScript CLI through tsx (a runtime dependency).
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { register } from "tsx/esm/api";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
register({ tsconfig: path.join(root, "tsconfig.json") });
await import(pathToFileURL(path.join(root, "cli", "index.ts")).href);
