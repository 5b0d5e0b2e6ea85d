import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import type { RunListPage, SavedViewView } from "@/lib/view-models";
import { newSignedInUser } from "@/test/support/people";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// Saved views of /runs over the real server: each person's own, validated, and invisible to
// everyone else; and the run list's sort and group parameters validated at the API.

let server: SharedTestServer;
let prisma: PrismaClient;
let token: string;

beforeAll(async () => {
  server = await withTestServer();
  const { databaseUrl } = server;
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, "views-host")).token;
});

afterAll(async () => {
  await prisma?.$disconnect();
});

type Person = Awaited<ReturnType<typeof newSignedInUser>>;

const call = (who: Person, method: string, path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: {
      cookie: who.cookie,
      origin: server.url,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });

const errorOf = async (res: Response) =>
  ((await res.json()) as { error: { code: string; message: string } }).error;

describe("saved views", () => {
  test("a person saves, lists, renames and deletes their views; the query is normalised", async () => {
    const me = await newSignedInUser(prisma, server.url, "viewer");
    const created = await call(me, "POST", "/api/views", {
      name: "  Fast benchmarks ",
      query: "?sort=peak&kind=benchmark&dir=desc",
    });
    expect(created.status).toBe(201);
    const view = (await created.json()) as SavedViewView;
    expect(view).toMatchObject({
      page: "runs",
      name: "Fast benchmarks",
      query: "kind=benchmark&sort=peak&dir=desc",
    });

    await call(me, "POST", "/api/views", { name: "A failed", query: "status=failed" });
    // Chosen columns and group-by are view state too (issue 25), normalised like the rest.
    const withCols = await call(me, "POST", "/api/views", {
      name: "With tp",
      query: "cols=peak,model,config.tp&group=model",
    });
    expect(withCols.status).toBe(201);
    const colsView = (await withCols.json()) as SavedViewView;
    expect(colsView.query).toBe("group=model&cols=model%2Cpeak%2Cconfig.tp");
    expect((await call(me, "DELETE", `/api/views/${colsView.id}`)).status).toBe(204);
    const listed = (await (await call(me, "GET", "/api/views?page=runs")).json()) as {
      views: SavedViewView[];
    };
    expect(listed.views.map((v) => v.name)).toEqual(["A failed", "Fast benchmarks"]);

    const renamed = await call(me, "PATCH", `/api/views/${view.id}`, { name: "Peak first" });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as SavedViewView).name).toBe("Peak first");
    // Renaming onto another of one's own views is a conflict.
    const clash = await call(me, "PATCH", `/api/views/${view.id}`, { name: "A failed" });
    expect(clash.status).toBe(409);
    expect((await errorOf(clash)).code).toBe("conflict");

    expect((await call(me, "DELETE", `/api/views/${view.id}`)).status).toBe(204);
    expect((await call(me, "DELETE", `/api/views/${view.id}`)).status).toBe(404);
    const after = (await (await call(me, "GET", "/api/views")).json()) as {
      views: SavedViewView[];
    };
    expect(after.views.map((v) => v.name)).toEqual(["A failed"]);
  });

  test("bad input is refused with a code and a message naming the problem", async () => {
    const me = await newSignedInUser(prisma, server.url, "viewer");
    const cases: Array<[unknown, string]> = [
      [{ name: "   ", query: "" }, "name cannot be blank"],
      [{ name: "x", query: "sort=bogus" }, "invalid value of sort"],
      [{ name: "x", query: "cols=config.a b" }, "invalid value of cols"],
      [{ name: "x", query: "kind=benchmark&colour=red" }, "unknown parameter colour"],
      [{ name: "x", query: "cursor=abc" }, "unknown parameter cursor"],
      [{ name: "x".repeat(81), query: "" }, "name"],
      [{ name: "x", query: "", owner: "someone" }, "owner"],
    ];
    for (const [body, message] of cases) {
      const res = await call(me, "POST", "/api/views", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe("invalid_body");
      expect(error.message).toContain(message);
    }
    const notJson = await call(me, "POST", "/api/views", "{nope");
    expect([notJson.status, (await errorOf(notJson)).code]).toEqual([400, "invalid_json"]);
    expect((await errorOf(await call(me, "PATCH", "/api/views/abc", { name: "y" }))).code).toBe(
      "invalid_query",
    );
    expect((await errorOf(await call(me, "GET", "/api/views?page=hosts"))).code).toBe(
      "invalid_query",
    );
  });

  test("another person's view is not found for reading, renaming or deleting; a worker token has no views", async () => {
    const owner = await newSignedInUser(prisma, server.url, "viewer");
    const other = await newSignedInUser(prisma, server.url, "admin");
    const view = (await (
      await call(owner, "POST", "/api/views", { name: "mine", query: "kind=training" })
    ).json()) as SavedViewView;
    // The same name is free for another person.
    expect((await call(other, "POST", "/api/views", { name: "mine", query: "" })).status).toBe(201);
    const theirs = (await (await call(other, "GET", "/api/views")).json()) as {
      views: SavedViewView[];
    };
    expect(theirs.views.map((v) => v.id)).not.toContain(view.id);
    expect((await call(other, "PATCH", `/api/views/${view.id}`, { name: "stolen" })).status).toBe(
      404,
    );
    expect((await call(other, "DELETE", `/api/views/${view.id}`)).status).toBe(404);
    expect((await prisma.savedView.findUniqueOrThrow({ where: { id: view.id } })).name).toBe(
      "mine",
    );

    const worker = await fetch(`${server.url}/api/views`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect([worker.status, (await errorOf(worker)).code]).toEqual([403, "forbidden"]);
    // A cross-site cookie request changes nothing.
    const cross = await fetch(`${server.url}/api/views/${view.id}`, {
      method: "DELETE",
      headers: { cookie: owner.cookie, origin: "https://evil.example" },
    });
    expect(cross.status).toBe(403);
    expect(await prisma.savedView.count({ where: { id: view.id } })).toBe(1);
  });
});

describe("GET /api/runs sort and group parameters", () => {
  test("sort, dir and sweep are validated; the page carries groups", async () => {
    const auth = { authorization: `Bearer ${token}` };
    const bad = await fetch(`${server.url}/api/runs?sort=colour`, { headers: auth });
    expect([bad.status, (await errorOf(bad)).code]).toEqual([400, "invalid_query"]);
    const badDir = await fetch(`${server.url}/api/runs?sort=name&dir=up`, { headers: auth });
    expect(badDir.status).toBe(400);
    const badSweep = await fetch(`${server.url}/api/runs?sweep=whatever`, { headers: auth });
    expect([badSweep.status, (await errorOf(badSweep)).message]).toEqual([
      400,
      expect.stringContaining("sweep"),
    ]);
    // A tag of this test's own: the shared server's database holds other files' runs.
    const ok = await fetch(
      `${server.url}/api/runs?sort=peak&dir=asc&group=off&tag=views-api-${randomUUID()}`,
      { headers: auth },
    );
    expect(ok.status).toBe(200);
    expect((await ok.json()) as RunListPage).toMatchObject({
      runs: [],
      groups: [],
      nextCursor: null,
    });
  });
});
