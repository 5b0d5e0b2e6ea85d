import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

import type { RouteContract } from "./contract";

// One contract per API route (issue 21): every app/api route.ts takes its input schemas from a
// client-safe module in lib/api, and every contract names a route that exists. A file scan: no
// database, no server.

const ROOT = path.resolve(__dirname, "../..");
const API_DIR = path.join(ROOT, "app/api");
const LIB_API = path.join(ROOT, "lib/api");

/** Routes whose input is not ours to declare. */
const EXEMPT: Record<string, string> = {
  "app/api/auth/[...all]/route.ts": "better-auth's own endpoints (sign-in, sign-out, session)",
};

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

const routeFiles = walk(API_DIR)
  .filter((f) => path.basename(f) === "route.ts")
  .map((f) => path.relative(ROOT, f))
  .sort();

const METHOD = /export (?:const|async function) (GET|POST|PUT|PATCH|DELETE)\b/g;

/** `GET /api/runs/:id/metrics` → [GET, app/api/runs/[id]/metrics/route.ts]. */
function fileOfRoute(route: string): [string, string] {
  const [method = "", urlPath = ""] = route.split(" ");
  const dir = urlPath.replace(/^\//, "").replace(/:([a-z]+)/gi, "[$1]");
  return [method, `app/${dir}/route.ts`];
}

async function contracts(): Promise<Array<[string, RouteContract]>> {
  const out: Array<[string, RouteContract]> = [];
  const modules = readdirSync(LIB_API).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
  for (const file of modules) {
    const mod = (await import(`./${file.replace(/\.ts$/, "")}.ts`)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      if (value && typeof value === "object" && typeof (value as RouteContract).route === "string")
        out.push([`${file}:${name}`, value as RouteContract]);
    }
  }
  return out;
}

describe("API contracts", () => {
  it("finds the route files (the scan itself works)", () => {
    expect(routeFiles.length).toBeGreaterThan(40);
    expect(routeFiles).toContain("app/api/runs/[id]/metrics/route.ts");
  });

  it("every app/api route.ts imports its contract from lib/api and declares no schema of its own", () => {
    const missing: string[] = [];
    const inline: string[] = [];
    for (const file of routeFiles) {
      if (EXEMPT[file]) continue;
      const text = readFileSync(path.join(ROOT, file), "utf8");
      if (!/from "@\/lib\/api\/[a-z-]+"/.test(text)) missing.push(file);
      if (/from "zod"/.test(text) || /\.safeParse\(/.test(text)) inline.push(file);
    }
    expect(missing).toEqual([]);
    expect(inline).toEqual([]);
  });

  it("every handler of every route has a contract naming it, and every contract names a real handler", async () => {
    const all = await contracts();
    const declared = new Set(all.map(([, c]) => c.route));
    const handlers: string[] = [];
    for (const file of routeFiles) {
      if (EXEMPT[file]) continue;
      const text = readFileSync(path.join(ROOT, file), "utf8");
      for (const m of text.matchAll(METHOD)) handlers.push(`${m[1]} ${file}`);
    }
    const contractHandlers = new Set(
      [...declared].map((route) => {
        const [method, file] = fileOfRoute(route);
        return `${method} ${file}`;
      }),
    );
    expect(handlers.filter((h) => !contractHandlers.has(h))).toEqual([]);
    expect([...contractHandlers].filter((h) => !handlers.includes(h))).toEqual([]);
    // One contract per handler: no two contracts claim the same route.
    expect(all.length).toBe(declared.size);
  });

  it("lib/api imports nothing server-only (lib/server, the Prisma client, node: modules)", () => {
    const offending: string[] = [];
    for (const file of readdirSync(LIB_API).filter((f) => /\.tsx?$/.test(f))) {
      if (file.endsWith(".test.ts")) continue;
      const text = readFileSync(path.join(LIB_API, file), "utf8");
      const imports = [...text.matchAll(/from "([^"]+)"/g)].map((m) => m[1] ?? "");
      for (const spec of imports)
        if (/^@\/lib\/server\/|^@\/generated\/|^node:|^\.\.\/server\//.test(spec))
          offending.push(`${file} imports ${spec}`);
    }
    expect(offending).toEqual([]);
  });
});
