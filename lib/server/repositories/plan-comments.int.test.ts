import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { InputError, NotFoundError } from "@/lib/server/errors";
import { ingestHarness } from "@/test/support/ingest";

import { addPlanComment, listPlanComments, setPlanCommentResolved } from "./plan-comments";

// Line comments on plans over a real PostgreSQL, plans seeded through the ingest code
// (plan.propose with `supersedes`): a comment written on one version shows on every later version,
// re-anchored to its line text where that still exists (open unless resolved), outdated where its
// line changed or vanished; resolving works from any later version.

const { pool, prisma, ingestAt, close } = await ingestHarness("plan-comments-host");
afterAll(close);

const planId = async (key: string) =>
  (await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [key])).rows[0]!.id;

/** Proposes version `n` of plan chain `base` with this body; returns its id. */
async function propose(base: string, n: number, lines: string[]): Promise<number> {
  await ingestAt(Date.now(), {
    type: "plan.propose",
    plan: `${base}:${n}`,
    ...(n > 1 ? { supersedes: `${base}:${n - 1}` } : {}),
    title: `v${n}`,
    body: lines.join("\n"),
    items: [{ content: "step" }],
  });
  return planId(`${base}:${n}`);
}

describe("plan line comments", () => {
  test("carry over: kept lines re-anchor (open or resolved as they were), changed ones go outdated", async () => {
    const base = `pc-${randomUUID()}`;
    const v1 = await propose(base, 1, [
      "# Extraction",
      "Start on 4 GPUs.",
      "Upload to S3, at most 100 in flight.",
      "Delete local files after upload.",
      "Write the report.",
    ]);
    const kept = await addPlanComment(prisma, v1, { line: 2, body: "which GPUs?" }, "Ava");
    const resolved = await addPlanComment(prisma, v1, { line: 5, body: "add τ" }, "Ava");
    const changed = await addPlanComment(prisma, v1, { line: 3, body: "too many" }, "Bo");
    const moved = await addPlanComment(prisma, v1, { line: 4, body: "only after ack" }, "Bo");
    expect(kept).toMatchObject({
      line: 2,
      outdated: false,
      resolved: false,
      lineText: "Start on 4 GPUs.",
    });
    await setPlanCommentResolved(prisma, v1, resolved.id, true, "Ava");

    // v2 rewrites line 3, moves the delete step to the end, and adds an intro line at the top.
    const v2 = await propose(base, 2, [
      "# Extraction",
      "Intro.",
      "Start on 4 GPUs.",
      "Upload to S3, at most 50 in flight.",
      "Write the report.",
      "Delete local files after upload.",
    ]);
    const onV2 = await addPlanComment(prisma, v2, { line: 4, body: "50 is fine" }, "Ava");
    const view = await listPlanComments(prisma, v2);
    expect(view.version).toBe(2);
    const byId = new Map(view.comments.map((c) => [c.id, c]));
    expect(byId.get(kept.id)).toMatchObject({
      line: 3,
      outdated: false,
      resolved: false,
      writtenOn: { planId: v1, version: 1, line: 2 },
    });
    expect(byId.get(resolved.id)).toMatchObject({
      line: 5,
      outdated: false,
      resolved: true,
      resolvedBy: "Ava",
    });
    expect(byId.get(changed.id)).toMatchObject({
      line: null,
      outdated: true,
      lineText: "Upload to S3, at most 100 in flight.",
    });
    expect(byId.get(moved.id)).toMatchObject({ line: 6, outdated: false });
    expect(byId.get(onV2.id)).toMatchObject({ line: 4, writtenOn: { version: 2, line: 4 } });
    // Anchored ones by line, outdated last.
    expect(view.comments.map((c) => c.line)).toEqual([3, 4, 5, 6, null]);

    // v1 still shows its own comments where they were written, and none of v2's.
    const onV1 = await listPlanComments(prisma, v1);
    expect(onV1.comments.map((c) => [c.id, c.line, c.outdated])).toEqual([
      [kept.id, 2, false],
      [changed.id, 3, false],
      [moved.id, 4, false],
      [resolved.id, 5, false],
    ]);

    // v3 drops the GPU line: the v1 comment goes outdated; the outdated one stays outdated.
    const v3 = await propose(base, 3, [
      "# Extraction",
      "Upload to S3, at most 100 in flight.",
      "Upload to S3, at most 50 in flight.",
      "Write the report.",
    ]);
    const onV3 = new Map((await listPlanComments(prisma, v3)).comments.map((c) => [c.id, c]));
    expect(onV3.get(kept.id)).toMatchObject({ line: null, outdated: true });
    expect(onV3.get(changed.id)).toMatchObject({ line: null, outdated: true });
    expect(onV3.get(onV2.id)).toMatchObject({ line: 3, outdated: false });
    expect(onV3.get(moved.id)).toMatchObject({ line: null, outdated: true });

    // Resolving a v1 comment from v3 resolves it everywhere; reopening clears who resolved it.
    await setPlanCommentResolved(prisma, v3, kept.id, true, "Bo");
    expect(
      (await listPlanComments(prisma, v1)).comments.find((c) => c.id === kept.id),
    ).toMatchObject({
      resolved: true,
      resolvedBy: "Bo",
    });
    const reopened = await setPlanCommentResolved(prisma, v2, kept.id, false, "Bo");
    expect(reopened).toMatchObject({ resolved: false, resolvedBy: null, line: 3 });
  });

  test("bad anchors are refused with a message; a comment is resolved only through a plan that shows it", async () => {
    const base = `pc-${randomUUID()}`;
    const v1 = await propose(base, 1, ["a", "", "b"]);
    await expect(addPlanComment(prisma, v1, { line: 4, body: "x" }, "Ava")).rejects.toThrow(
      new InputError("invalid_body", `line: plan ${v1} has 3 lines; there is no line 4`),
    );
    await expect(addPlanComment(prisma, v1, { line: 2, body: "x" }, "Ava")).rejects.toThrow(
      /line 2 is blank/,
    );
    await expect(
      addPlanComment(prisma, 2_000_000_000, { line: 1, body: "x" }, "Ava"),
    ).rejects.toThrow(NotFoundError);
    const other = await propose(`pc-${randomUUID()}`, 1, ["z"]);
    const c = await addPlanComment(prisma, v1, { line: 3, body: "ok" }, "Ava");
    await expect(setPlanCommentResolved(prisma, other, c.id, true, "Ava")).rejects.toThrow(
      NotFoundError,
    );
    const noBody = `pc-${randomUUID()}`;
    await ingestAt(Date.now(), {
      type: "plan.propose",
      plan: noBody,
      title: "t",
      items: [{ content: "s" }],
    });
    await expect(
      addPlanComment(prisma, await planId(noBody), { line: 1, body: "x" }, "Ava"),
    ).rejects.toThrow(/has no text/);
  });
});
