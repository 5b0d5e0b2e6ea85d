import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import type { RunDetail, RunListPage } from "@/lib/view-models";
import { newSignedInUser } from "@/test/support/people";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// Editing (name, tags, notes) and archiving runs through PATCH /api/runs/:id on the real server:
// only approvers and admins, same-origin cookies only, validated bodies, archived runs hidden
// from the list and the overview, and a worker's run.start re-send never undoing a person's edit.

let server: SharedTestServer;
let prisma: PrismaClient;
let token: string;

beforeAll(async () => {
  server = await withTestServer();
  const { databaseUrl } = server;
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, "edit-host")).token;
});

afterAll(async () => {
  await prisma?.$disconnect();
});

/** Pushes frames over the HTTP ingest path like a worker; expects every frame accepted. */
async function ingest(frames: Array<Record<string, unknown>>): Promise<void> {
  const res = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(frames.map((f) => ({ v: 1, id: randomUUID(), ...f }))),
  });
  expect(((await res.json()) as { accepted: number }).accepted).toBe(frames.length);
}

const runStart = (key: string, extra: Record<string, unknown> = {}) => ({
  type: "run.start",
  run: key,
  name: `worker name ${key}`,
  kind: "benchmark",
  tags: ["from-worker"],
  ...extra,
});

async function startRun(extra: Record<string, unknown> = {}): Promise<{ key: string; id: number }> {
  const key = `edit-${randomUUID().slice(0, 8)}`;
  await ingest([runStart(key, extra)]);
  const { id } = await prisma.run.findUniqueOrThrow({ where: { key }, select: { id: true } });
  return { key, id };
}

const patch = (id: number, body: unknown, headers: Record<string, string>) =>
  fetch(`${server.url}/api/runs/${id}`, {
    method: "PATCH",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const listRunIds = async (query = ""): Promise<number[]> => {
  const res = await fetch(`${server.url}/api/runs${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await res.json()) as RunListPage).runs.map((r) => r.id);
};

describe("PATCH /api/runs/:id", () => {
  test("an approver renames, retags and annotates a run; the edit records who and when", async () => {
    const approver = await newSignedInUser(prisma, server.url, "approver");
    const { id } = await startRun();
    const res = await patch(
      id,
      { name: "TP8 vs EP8 baseline", tags: [" tp8 ", "baseline", "tp8"], notes: "MTP off" },
      { cookie: approver.cookie, origin: server.url },
    );
    expect(res.status).toBe(200);
    const run = (await res.json()) as RunDetail;
    expect(run).toMatchObject({
      id,
      name: "TP8 vs EP8 baseline",
      tags: ["tp8", "baseline"],
      notes: "MTP off",
      editedBy: approver.email,
      archivedAt: null,
    });
    expect(Date.parse(run.editedAt!)).not.toBeNaN();
    const stored = await prisma.run.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({
      name: "TP8 vs EP8 baseline",
      tags: ["tp8", "baseline"],
      notes: "MTP off",
      editedBy: approver.email,
    });

    // Clearing notes with "" or null.
    const cleared = (await (
      await patch(id, { notes: "" }, { cookie: approver.cookie, origin: server.url })
    ).json()) as RunDetail;
    expect(cleared.notes).toBeNull();
  });

  test("a worker re-sending run.start keeps the person's name, tags and notes but updates the rest", async () => {
    const approver = await newSignedInUser(prisma, server.url, "approver");
    const { key, id } = await startRun({ notes: "worker notes" });
    expect(
      (
        await patch(
          id,
          { name: "Renamed by a person", tags: ["keep"] },
          { cookie: approver.cookie, origin: server.url },
        )
      ).status,
    ).toBe(200);
    await ingest([runStart(key, { config: { tp: 8 }, notes: "new worker notes" })]);
    const stored = await prisma.run.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({
      name: "Renamed by a person",
      tags: ["keep"],
      notes: "worker notes",
      config: { tp: 8 },
    });

    // A run nobody edited still takes the worker's new name and tags.
    const other = await startRun({ config: { tp: 8, model: "Kimi-K2.6" } });
    await ingest([runStart(other.key, { name: "worker renamed it", tags: ["retagged"] })]);
    expect(await prisma.run.findUniqueOrThrow({ where: { id: other.id } })).toMatchObject({
      name: "worker renamed it",
      tags: ["retagged"],
    });
    // A re-send that leaves config and tags out keeps the stored ones.
    await ingest([
      { type: "run.start", run: other.key, name: "worker renamed it", kind: "benchmark" },
    ]);
    expect(await prisma.run.findUniqueOrThrow({ where: { id: other.id } })).toMatchObject({
      config: { tp: 8, model: "Kimi-K2.6" },
      tags: ["retagged"],
    });
  });

  test("archiving hides the run from the list and the overview; archived=include|only find it; unarchive restores it", async () => {
    const admin = await newSignedInUser(prisma, server.url, "admin");
    const approver = await newSignedInUser(prisma, server.url, "approver");
    const { id } = await startRun();
    expect(await listRunIds()).toContain(id);
    expect(
      (
        await patch(
          id,
          { name: "edited before archiving" },
          { cookie: approver.cookie, origin: server.url },
        )
      ).status,
    ).toBe(200);

    const res = await patch(id, { archived: true }, { cookie: admin.cookie, origin: server.url });
    expect(res.status).toBe(200);
    const archived = (await res.json()) as RunDetail;
    const archivedAt = archived.archivedAt;
    expect(archivedAt).not.toBeNull();
    // Archiving records who archived; the last edit stays the approver's.
    expect(archived).toMatchObject({ archivedBy: admin.email, editedBy: approver.email });
    expect(await listRunIds()).not.toContain(id);
    expect(await listRunIds("?archived=include")).toContain(id);
    const only = await listRunIds("?archived=only");
    expect(only).toContain(id);
    for (const other of only)
      expect(
        (await prisma.run.findUniqueOrThrow({ where: { id: other } })).archivedAt,
      ).not.toBeNull();
    const overview = (await (
      await fetch(`${server.url}/api/overview`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { active: Array<{ id: number }> };
    expect(overview.active.map((r) => r.id)).not.toContain(id);

    // Archiving again keeps the first time; the run page (GET) still answers.
    const again = (await (
      await patch(id, { archived: true }, { cookie: admin.cookie, origin: server.url })
    ).json()) as RunDetail;
    expect(again.archivedAt).toBe(archivedAt);
    expect(
      (
        await fetch(`${server.url}/api/runs/${id}`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(200);

    const restored = await patch(
      id,
      { archived: false },
      { cookie: admin.cookie, origin: server.url },
    );
    expect((await restored.json()) as RunDetail).toMatchObject({
      archivedAt: null,
      archivedBy: null,
      editedBy: approver.email,
    });
    expect(await listRunIds()).toContain(id);
  });

  test("viewers and worker tokens get 403 and change nothing; no credentials get 401", async () => {
    const viewer = await newSignedInUser(prisma, server.url, "viewer");
    const { id } = await startRun();
    const byViewer = await patch(
      id,
      { name: "nope" },
      { cookie: viewer.cookie, origin: server.url },
    );
    expect(byViewer.status).toBe(403);
    expect(((await byViewer.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    expect((await patch(id, { archived: true }, { authorization: `Bearer ${token}` })).status).toBe(
      403,
    );
    expect((await patch(id, { archived: true }, {})).status).toBe(401);
    const stored = await prisma.run.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({
      name: `worker name ${stored.key}`,
      archivedAt: null,
      editedAt: null,
    });
  });

  test("CSRF: an approver's cookie from another origin, or without an Origin, is refused", async () => {
    const approver = await newSignedInUser(prisma, server.url, "approver");
    const { id } = await startRun();
    expect(
      (
        await patch(
          id,
          { name: "evil" },
          { cookie: approver.cookie, origin: "https://evil.example" },
        )
      ).status,
    ).toBe(403);
    expect((await patch(id, { name: "evil" }, { cookie: approver.cookie })).status).toBe(403);
    expect((await prisma.run.findUniqueOrThrow({ where: { id } })).name).not.toBe("evil");
  });

  test("bad bodies get specific errors: empty patch, unknown field, blank name, not JSON, unknown run", async () => {
    const approver = await newSignedInUser(prisma, server.url, "approver");
    const { id } = await startRun();
    const auth = { cookie: approver.cookie, origin: server.url };
    for (const body of [
      {},
      { name: "x", status: "failed" },
      { name: "   " },
      { tags: "a,b" },
      { tags: [""] },
      { tags: ["ok", "  "] },
    ]) {
      const res = await patch(id, body, auth);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_body");
    }
    const notJson = await patch(id, "{name:", auth);
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).toBe("invalid_json");
    expect((await patch(999_999, { name: "x" }, auth)).status).toBe(404);
    expect((await patch(0, { name: "x" }, auth)).status).toBe(400);
    expect((await prisma.run.findUniqueOrThrow({ where: { id } })).editedAt).toBeNull();
  });
});
