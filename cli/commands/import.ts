import fs from "node:fs/promises";
import path from "node:path";
import cliProgress from "cli-progress";
import { Option, type Command } from "commander";

import { IngestHttpError, postFrames } from "@/lib/client/http";
import { fetchStoredRunLabels } from "@/lib/client/stored-run";
import {
  describeRepeatedSteps,
  importFiles,
  type BenchmarkScenario,
  type ImportedTrainingRun,
} from "@/lib/importers";
import { planRelabel, relabelResend } from "@/lib/importers/relabel";
import { BENCHMARK_SCENARIOS, type ClientFrameInput } from "@/lib/protocol";

import { readClientConfig } from "../config";
import { fail } from "../fail";

/** Files bigger than this get a progress bar while sending. */
const PROGRESS_BAR_MIN_FRAMES = 20;

/** Registers `pitwall import <file...>`. */
export function registerImportCommand(program: Command): void {
  program
    .command("import")
    .argument(
      "<files...>",
      "benchmark results (SGLang bench_serving JSONL, vLLM bench serve JSON/JSONL and bench sweep summary.json, GenAI-Perf profile_export_genai_perf.json, GuideLLM benchmarks.json), training logs (Hugging Face trainer_state.json, LLaMA-Factory trainer_log.jsonl, CSV metric tables with a step column), drafter evals (SpecForge bench_eagle3 results JSON, SGLang server logs with accept len) or agent sessions (`opencode export <id>` JSON, Claude Code ~/.claude/projects/…/<session>.jsonl); the format is detected from the content",
    )
    .description(
      "import benchmark results, training logs, drafter evals and agent-session todo lists through POST /api/ingest (PITWALL_URL, PITWALL_TOKEN)",
    )
    .option(
      "--host <host>",
      "where the benchmark, training or agent session ran (default: the token's host)",
    )
    .option(
      "--name <name>",
      "run name; with several benchmark files, makes them ONE run (one file per concurrency level; GenAI-Perf exports make one run anyway); training logs default to their folder's name; names every eval run",
    )
    .addOption(new Option("--tag <tag...>", "tag(s) for the run(s)").default([]))
    .addOption(
      new Option(
        "--scenario <name>",
        "scenario of every imported benchmark point: throughput (default) or long-context (runs at long input lengths, e.g. 30K/60K/100K tokens, charted by context length); importing the same file again with another scenario re-labels its points",
      ).choices(BENCHMARK_SCENARIOS),
    )
    .action(
      async (
        files: string[],
        opts: { host?: string; name?: string; tag: string[]; scenario?: BenchmarkScenario },
      ) => {
        const config = readClientConfig();
        if (!config.PITWALL_TOKEN) {
          fail(
            "PITWALL_TOKEN is not set: create one with `npx pitwall token create <host>` and export it",
            2,
          );
        }
        const inputs = await Promise.all(
          files.map(async (file) => {
            try {
              return { path: file, text: await fs.readFile(file, "utf8") };
            } catch (err) {
              fail(`cannot read ${file}: ${(err as Error).message}`, 2);
            }
          }),
        );
        const { benchmarkRuns, trainingRuns, evalRuns, sessions, problems } = importFiles(inputs, {
          name: opts.name,
          host: opts.host,
          tags: opts.tag,
          scenario: opts.scenario,
        });
        for (const p of problems) process.stderr.write(`${p.file}:${p.line}: ${p.message}\n`);
        if (opts.scenario !== undefined && benchmarkRuns.length === 0)
          process.stderr.write(
            `--scenario applies to benchmark results only; no benchmark file was given, so it was ignored\n`,
          );

        // One line per run or session once its frames are in: what it is, and where it went.
        const runs: Array<{
          files: string[];
          frames: ClientFrameInput[];
          summary: string;
          runKey?: string;
        }> = [
          ...benchmarkRuns.map((run) => ({
            runKey: run.runKey,
            files: run.files,
            frames: run.frames,
            summary: `${run.format}, ${run.pointCount} ${opts.scenario === "long-context" ? "long-context " : ""}points → run ${run.runKey}`,
          })),
          ...trainingRuns.map((run) => ({
            runKey: run.runKey,
            files: run.files,
            frames: run.frames,
            summary: trainingSummary(run),
          })),
          ...evalRuns.map((run) => ({
            runKey: run.runKey,
            files: run.files,
            frames: run.frames,
            summary: `${run.format}, ${run.resultCount} eval result${run.resultCount === 1 ? "" : "s"}, ${run.metricPointCount} metric points → ${run.kind} run ${run.runKey}`,
          })),
          ...sessions.map((session) => ({
            files: [session.file],
            // `session.todos` is not in the `clientFrame` union until its ingest lands; until then the
            // server answers invalid_frame for these frames, which is reported below like any rejection.
            frames: session.frames as unknown as ClientFrameInput[],
            summary: `${session.format}, ${session.snapshotCount} todo snapshot${session.snapshotCount === 1 ? "" : "s"} → session ${session.sessionKey}${session.title !== null ? ` ("${session.title}")` : ""}`,
          })),
        ];
        let failed = problems.length > 0;
        for (const run of runs) {
          const label = run.files.map((f) => path.basename(f)).join(", ");
          let plan: ReturnType<typeof planRelabel>;
          try {
            // What the server already holds decides which frames re-label (see lib/importers/relabel.ts).
            const stored =
              run.runKey === undefined
                ? null
                : await fetchStoredRunLabels(config.urls, config.PITWALL_TOKEN!, run.runKey);
            plan = planRelabel(run.frames, stored);
          } catch (err) {
            if (err instanceof IngestHttpError) fail(err.message, 1);
            throw err;
          }
          const frames = run.frames;
          const bar =
            frames.length >= PROGRESS_BAR_MIN_FRAMES && process.stderr.isTTY
              ? new cliProgress.SingleBar(
                  { format: `${label} [{bar}] {value}/{total} frames`, stream: process.stderr },
                  cliProgress.Presets.shades_classic,
                )
              : null;
          bar?.start(frames.length, 0);
          try {
            const first = await postFrames(config.urls, config.PITWALL_TOKEN!, frames, (sent) =>
              bar?.update(sent),
            );
            const resend = relabelResend(
              frames,
              plan,
              new Set(first.filter((r) => r.ok && r.duplicate).map((r) => r.id)),
            );
            const results =
              resend.length > 0
                ? [...first, ...(await postFrames(config.urls, config.PITWALL_TOKEN!, resend))]
                : first;
            bar?.stop();
            const rejected = results.filter((r) => !r.ok);
            const duplicates = results.filter((r) => r.ok && r.duplicate).length;
            for (const r of rejected)
              if (!r.ok)
                process.stderr.write(`${label}: frame ${r.id} rejected: ${r.code}: ${r.message}\n`);
            if (rejected.length) failed = true;
            const notes = [
              ...(plan.changes.length > 0
                ? [`re-labelled: ${plan.changes.join(", ")}`]
                : duplicates === results.length
                  ? ["already imported; nothing changed"]
                  : []),
              ...plan.kept,
            ];
            const note = notes.length > 0 ? ` (${notes.join("; ")})` : "";
            process.stdout.write(`${label}: ${run.summary}${note}\n`);
          } catch (err) {
            bar?.stop();
            if (err instanceof IngestHttpError) fail(err.message, 1);
            throw err;
          }
        }
        if (benchmarkRuns.length + trainingRuns.length + evalRuns.length > 0)
          process.stdout.write(`open ${new URL("/runs", config.urls[0]).toString()}\n`);
        if (failed) process.exitCode = 1;
      },
    );
}

/** The summary line of an imported training run: points, last step, how it ended, repeated steps. */
function trainingSummary(run: ImportedTrainingRun): string {
  const steps = `step ${run.lastStep ?? "?"}${run.totalSteps !== null ? `/${run.totalSteps}` : ""}`;
  const end = run.finished
    ? ", training finished"
    : `, ended at its last logged step (${run.totalSteps !== null ? "before its planned steps" : "no planned steps in the log"}; outcome unknown)`;
  const repeats = describeRepeatedSteps(run.repeatedSteps);
  return `${run.format}, ${run.pointCount} metric points, ${steps} → run ${run.runKey}${end}${repeats ? `; ${repeats}` : ""}`;
}
