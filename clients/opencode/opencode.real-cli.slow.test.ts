import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";

import { opencodeOfflineEnv, writeOpencodeProject } from "@/test/support/agents/clis";
import { withAgentFixture } from "@/test/support/agents/fixture";
import {
  lastToolResults,
  offersTools,
  type ScriptedReply,
} from "@/test/support/agents/model-server";
import { outputOf, runOpencode } from "@/test/support/agents/run-agent";
import { installedProject } from "@/test/support/agents/testbed";
import { until } from "@/test/support/until";

// The real opencode CLI (1.18.33, installed on demand outside the repo) against a scripted
// OpenAI-compatible model server and a real Pitwall, with our plugin installed by
// `pitwall agent install opencode`: each todowrite call appears as a snapshot on /sessions/[id]
// in a real Chromium while the agent still runs; the plugin's pitwall_propose_plan tool holds the
// agent until a person decides in the browser, and the decision is the tool's result.

const fx = withAgentFixture("opencode-box");

const list1 = [
  { id: "1", content: "Run the decode sweep C=1..64", status: "in_progress", priority: "high" },
  { id: "2", content: "Write the summary table", status: "pending", priority: "medium" },
];
const list2 = [
  { id: "1", content: "Run the decode sweep C=1..64", status: "completed", priority: "high" },
  { id: "2", content: "Write the summary table", status: "in_progress", priority: "medium" },
];

/** A fresh git project with our plugin installed by the real CLI command; the environment opencode runs with. */
function project(): { dir: string; env: Record<string, string> } {
  const { dir, env } = installedProject(fx.bed, "opencode", {
    branch: "decode-sweep",
    prefix: "oc-proj",
  });
  const xdg = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-oc-xdg-"));
  return { dir, env: { ...opencodeOfflineEnv(xdg), ...env, PITWALL_PLAN_TIMEOUT_S: "600" } };
}

test("opencode's todowrite calls appear as snapshots on the session page while the agent runs", async () => {
  const { pool } = fx.bed;
  const { dir, env } = project();
  let release!: () => void;
  const seenInBrowser = new Promise<void>((r) => (release = r));
  const model = await fx.startModel(async (req): Promise<ScriptedReply> => {
    if (!offersTools(req)) return { text: "Decode sweep" }; // the title request
    const last = lastToolResults(req).at(-1);
    if (!last) return { toolCalls: [{ name: "todowrite", input: { todos: list1 } }] };
    if (last.toolName === "todowrite" && !last.content.includes("completed")) {
      await seenInBrowser; // the person has seen snapshot 1 while the agent still runs
      return { toolCalls: [{ name: "todowrite", input: { todos: list2 } }] };
    }
    return { text: "FINAL: sweep done" };
  });
  writeOpencodeProject(dir, model.url);

  const { page } = await fx.signedInPage({ role: "viewer", viewport: null });

  // opencode's start-up alone took two minutes on a busy two-core machine: the waits on it are generous.
  const run = runOpencode({
    opencode: fx.clis.opencode,
    cwd: dir,
    env,
    prompt: "run the decode sweep",
    timeoutMs: 480_000,
  });
  const output = outputOf(run);

  // Snapshot 1 reaches Pitwall and shows on the session page while opencode waits for the model.
  const session = await until(
    "the opencode session",
    async () =>
      (
        await pool.query<{ id: number; key: string }>(
          `SELECT s.id, s.key FROM "AgentSession" s JOIN "TodoSnapshot" t ON t."sessionId" = s.id WHERE s.source = 'opencode' LIMIT 1`,
        )
      ).rows[0],
    300_000,
    output,
  );
  await page.goto(`/sessions/${session.id}`);
  const current = page.getByRole("list", { name: "Current todo items" });
  await current.getByText("Run the decode sweep C=1..64").waitFor();
  await current.getByText("Write the summary table").waitFor();
  const timeline = page.getByRole("list", { name: "Snapshots, newest first" });
  expect(await timeline.getByRole("listitem", { name: /^Snapshot #/ }).count()).toBe(1);
  release();

  // Snapshot 2 arrives live on the open page (no reload): the sweep item is completed.
  await timeline.getByRole("listitem", { name: "Snapshot #2" }).waitFor({ timeout: 120_000 });
  await page.getByText("1/2 completed").first().waitFor();

  const done = await run;
  expect(done.code, done.stderr.slice(-40).join("\n")).toBe(0);
  expect(done.stdout.join("\n")).toContain("FINAL: sweep done");
  const rows = (
    await pool.query<{
      seq: number;
      items: Array<{ content: string; status: string; priority?: string }>;
    }>(`SELECT seq, items FROM "TodoSnapshot" WHERE "sessionId" = $1 ORDER BY seq`, [session.id])
  ).rows;
  expect(rows.map((r) => r.items.map((i) => [i.content, i.status, i.priority]))).toEqual(
    [list1, list2].map((l) => l.map((i) => [i.content, i.status, i.priority])),
  );
  const live = (
    await pool.query<{ state: string; cwd: string }>(
      `SELECT state, cwd FROM "AgentSession" WHERE id = $1`,
      [session.id],
    )
  ).rows[0]!;
  expect(live.cwd).toBe(dir);
  // The opencode process ended: the plugin's heartbeat process reports the session ended within seconds.
  const exitedAt = Date.now();
  await until(
    "the session ended",
    async () =>
      (
        await pool.query<{ state: string }>(`SELECT state FROM "AgentSession" WHERE id = $1`, [
          session.id,
        ])
      ).rows[0]!.state === "ended",
    15_000,
  );
  expect(Date.now() - exitedAt).toBeLessThan(15_000);
  expect(
    (
      await pool.query<{ stateDetail: string }>(
        `SELECT "stateDetail" FROM "AgentSession" WHERE id = $1`,
        [session.id],
      )
    ).rows[0]!.stateDetail,
  ).toBe("the agent process ended");
}, 600_000);

test("pitwall_propose_plan waits for a person: changes requested in the browser reach the model, the revision supersedes it and is approved", async () => {
  const { pool } = fx.bed;
  const { dir, env } = project();
  const plan1 = "# Decode sweep\n1. Throughput C=1..64\n2. Summarize\n";
  const plan2 = "# Decode sweep\n1. Warm up the server\n2. Throughput C=1..32\n3. Summarize\n";
  const model = await fx.startModel((req): ScriptedReply => {
    if (!offersTools(req)) return { text: "Decode sweep plan" };
    const last = lastToolResults(req).at(-1);
    if (!last) return { toolCalls: [{ name: "pitwall_propose_plan", input: { plan: plan1 } }] };
    if (last.toolName === "pitwall_propose_plan" && last.content.includes("requested changes"))
      return { toolCalls: [{ name: "pitwall_propose_plan", input: { plan: plan2 } }] };
    return { text: `FINAL: ${last.content.slice(0, 400)}` };
  });
  writeOpencodeProject(dir, model.url);
  const { page } = await fx.signedInPage({ viewport: null });

  const run = runOpencode({
    opencode: fx.clis.opencode,
    cwd: dir,
    env,
    prompt: "plan the decode sweep",
    timeoutMs: 480_000,
  });
  const output = outputOf(run);
  const pending = () =>
    pool.query<{ id: number; key: string; title: string; body: string; supersedes: string | null }>(
      `SELECT id, key, title, body, supersedes FROM "Plan" WHERE status = 'proposed' AND key LIKE 'oc:%'`,
    );
  const first = await until("plan 1", async () => (await pending()).rows[0], 300_000, output);
  expect(first).toMatchObject({ title: "Decode sweep", body: plan1, supersedes: null });

  // A person requests changes from the plans list, with a comment.
  await page.goto("/plans");
  const decide = page.getByRole("group", { name: "Decide “Decode sweep”" });
  await decide.getByRole("button", { name: "Request changes" }).click();
  await decide.getByLabel(/Comment for the agent/).fill("Warm the server up first, stop at C=32");
  await decide.getByRole("button", { name: "Send: request changes" }).click();

  await until(
    "the comment at the model",
    async () =>
      model.requests.some(
        (r) =>
          r.text.includes("Warm the server up first, stop at C=32") &&
          r.text.includes("call pitwall_propose_plan again"),
      ),
    120_000,
    output,
  );
  const second = await until("plan 2", async () => (await pending()).rows[0], 120_000, output);
  expect(second).toMatchObject({ body: plan2, supersedes: first.key });

  // The revision is approved on its own page.
  await page.goto(`/plans/${second.id}`);
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  const done = await run;
  expect(done.code, output()).toBe(0);
  expect(done.stdout.join("\n")).toContain("FINAL: APPROVED. Carry out this plan:");
  expect(
    model.requests.some((r) =>
      lastToolResults(r).some(
        (t) =>
          t.toolName === "pitwall_propose_plan" &&
          t.content.includes("Warm up the server") &&
          t.content.startsWith("APPROVED"),
      ),
    ),
  ).toBe(true);
}, 600_000);
