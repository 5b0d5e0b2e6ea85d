import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import type { Command } from "commander";
import { z } from "zod";

import { PitwallAuthError, PitwallSocket } from "@/lib/client/socket";
import {
  describeIssues,
  parseLenientJson,
  planDecisionFrame,
  planItem,
  type PlanDecisionFrame,
} from "@/lib/protocol";

import { readClientConfig } from "../config";
import { fail } from "../fail";

/**
 * `plan.json` as an agent writes it: `{title, rationale?, items: [{content, priority?}],
 * session?, run?, expiresInS?}` — `session` and `run` are client keys of an agent session and a
 * run to link the plan to.
 */
export const planFile = z.strictObject({
  title: z.string().min(1).max(500),
  rationale: z.string().max(50_000).optional(),
  items: z.array(planItem).min(1).max(200),
  session: z.string().min(1).max(200).optional(),
  run: z.string().min(1).max(200).optional(),
  expiresInS: z
    .number()
    .int()
    .min(10)
    .max(30 * 86_400)
    .optional(),
});

/** Exit codes of `pitwall plan propose --wait`, one per decision. */
export const DECISION_EXIT_CODES = {
  approved: 0,
  changes_requested: 3,
  rejected: 4,
  expired: 5,
} as const;

/** Registers `pitwall plan propose <plan.json> [--wait]`. */
export function registerPlanCommands(program: Command): void {
  const plan = program
    .command("plan")
    .description("propose next steps and wait for a person's decision");
  plan
    .command("propose")
    .argument(
      "<file>",
      "plan.json: {title, rationale?, items: [{content, priority?}], session?, run?}; - reads stdin",
    )
    .description(
      "propose a plan; with --wait, print the decided (possibly edited) items as JSON and exit 0 approved, " +
        "3 changes requested (the comment goes to stderr), 4 rejected, 5 expired",
    )
    .option("--wait", "wait for the decision")
    .option(
      "--key <key>",
      "plan key (default: derived from the file's content, so re-running waits on the same plan)",
    )
    .option(
      "--timeout <seconds>",
      "give up waiting after this long (exit 1); default: until the plan expires",
      parsePositive,
    )
    .action(async (file: string, opts: { wait?: boolean; key?: string; timeout?: number }) => {
      const config = readClientConfig();
      if (!config.PITWALL_TOKEN)
        fail(
          "PITWALL_TOKEN is not set: create one with `npx pitwall token create <host>` and export it",
          2,
        );
      let text: string;
      try {
        text = file === "-" ? await readStdin() : await fs.readFile(file, "utf8");
      } catch (err) {
        fail(`cannot read ${file}: ${(err as Error).message}`, 2);
      }
      let body: z.infer<typeof planFile>;
      try {
        const parsed = planFile.safeParse(parseLenientJson(text));
        if (!parsed.success) fail(`${file}: ${describeIssues(parsed.error)}`, 2);
        body = parsed.data;
      } catch (err) {
        fail(`${file} is not JSON: ${(err as Error).message}`, 2);
      }
      const key =
        opts.key ?? `plan-${createHash("sha256").update(text).digest("hex").slice(0, 20)}`;

      const socket = new PitwallSocket({ url: config.urls, token: config.PITWALL_TOKEN! });
      const decided = new Promise<PlanDecisionFrame>((resolve) => {
        socket.on("message", (msg) => {
          const frame = planDecisionFrame.safeParse(msg);
          if (frame.success && frame.data.plan === key) resolve(frame.data);
        });
      });
      const refused = new Promise<never>((_, reject) => {
        socket.on("rejected", (r) =>
          reject(new Error(`the plan was rejected by the server: ${r.code}: ${r.message}`)),
        );
        socket.on("fatal", (err) => reject(err));
      });
      refused.catch(() => undefined); // observed through the races below; never unhandled
      // Frame id from key + content: a re-run re-sends the same frame, which the server
      // acknowledges as a duplicate and answers with the decision if there is one already.
      const id = `${key}/${createHash("sha256").update(text).digest("hex").slice(0, 12)}`;
      socket.send({ id, type: "plan.propose", plan: key, ...body });
      try {
        await Promise.race([socket.flush(30_000), refused]);
        process.stderr.write(
          `proposed plan ${key}; decide at ${new URL("/plans", config.urls[0]).toString()}\n`,
        );
        if (!opts.wait) {
          process.stdout.write(`${key}\n`);
          return;
        }
        const timeout = opts.timeout
          ? new Promise<never>((_, reject) =>
              setTimeout(
                () => reject(new Error(`no decision after ${opts.timeout} s`)),
                opts.timeout! * 1000,
              ).unref(),
            )
          : new Promise<never>(() => undefined);
        const decision = await Promise.race([decided, refused, timeout]);
        process.stdout.write(`${JSON.stringify(decision.items, null, 2)}\n`);
        if (decision.comment)
          process.stderr.write(
            `${decision.decision.replace("_", " ")} by ${decision.decidedBy ?? "?"}: ${decision.comment}\n`,
          );
        else
          process.stderr.write(
            `${decision.decision.replace("_", " ")} by ${decision.decidedBy ?? "?"}\n`,
          );
        process.exitCode = DECISION_EXIT_CODES[decision.decision];
      } catch (err) {
        fail(
          err instanceof PitwallAuthError
            ? `${err.message} (check PITWALL_TOKEN)`
            : (err as Error).message,
          1,
        );
      } finally {
        await socket.close().catch(() => undefined);
      }
    });
}

function parsePositive(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`expected a positive number of seconds, got '${v}'`);
  return n;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
