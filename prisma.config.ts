import path from "node:path";
import { defineConfig } from "prisma/config";

// Prisma 7's CLI downloads a native schema engine before every command, which fails offline
// (here and on air-gapped GPU clusters). We point it at a Node shim backed by Prisma's official
// WebAssembly build of the same engine; see prisma/engine/README.md.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(
  import.meta.dirname,
  "prisma/engine/schema-engine",
);

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: {
    url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/pitwall",
    shadowDatabaseUrl: process.env.SHADOW_DATABASE_URL,
  },
});
