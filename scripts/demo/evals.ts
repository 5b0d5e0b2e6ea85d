import type { PitwallSocket } from "@/lib/client";
import type { EvalResultInput } from "@/lib/protocol";

import { checkpointPrefix, type DemoContext, type DemoWorker, type GpuReading } from "./context";
import { gaussian, type Rng } from "./rng";

/**
 * Drafter evals: acceptance length τ per checkpoint against the public reference.
 *
 * At start it pushes the reference baseline (τ 12.4, DDTree-8 on coding prompts, ± 0.3) and an
 * older training run ("run 6", finished two days ago) with its checkpoints and their evals, whose
 * coding τ plateaus below the reference. Then it scores each new checkpoint of the live training
 * run (run 7, {@link TrainingDemo}) a few simulated minutes after it is uploaded: an eval run on
 * `ct129` pushes one `run.eval` result per prompt (raw verify steps and accepted draft tokens) for
 * 12 prompts in each of coding, math and chat. Run 7's coding τ crosses 12.4 around step 11,500.
 */

/** The reference every chart draws. */
export const REFERENCE = {
  name: "DDTree-8 public drafter (coding)",
  metric: "tau",
  value: 12.4,
  tolerance: 0.3,
} as const;
const CATEGORIES = ["coding", "math", "chat"] as const;
type Category = (typeof CATEGORIES)[number];
const PROMPTS_PER_CATEGORY = 12;
const DRAFT = { method: "dflash", blockSize: 16, tree: "ddtree-8", topK: 8 };
/** Simulated seconds from a checkpoint's upload to its scores. */
const SCORE_DELAY_S = 6 * 60;

/** τ curve of a recipe: from `start` towards `plateau` per category, with time constant `k` steps. */
export interface Recipe {
  start: Record<Category, number>;
  plateau: Record<Category, number>;
  k: number;
}
/** The older recipe: coding τ plateaus below the reference. */
export const RUN6: Recipe = {
  start: { coding: 9.1, math: 8.4, chat: 6.9 },
  plateau: { coding: 11.9, math: 11.1, chat: 9.0 },
  k: 5_000,
};
/** The live recipe: coding τ crosses the reference mid-run. */
export const RUN7: Recipe = {
  start: { coding: 9.5, math: 8.7, chat: 7.1 },
  plateau: { coding: 12.9, math: 11.8, chat: 9.6 },
  k: 6_000,
};

/** Expected τ of `recipe` at checkpoint `step` for `category`. */
export function expectedTau(recipe: Recipe, category: Category, step: number): number {
  const start = recipe.start[category];
  const plateau = recipe.plateau[category];
  return plateau - (plateau - start) * Math.exp(-step / recipe.k);
}

/** One result per prompt: verify steps and accepted draft tokens whose ratio scatters around the expected τ. */
function scoreCheckpoint(
  rng: Rng,
  recipe: Recipe,
  step: number,
  uri: string,
  ts: number,
): EvalResultInput[] {
  const results: EvalResultInput[] = [];
  for (const category of CATEGORIES) {
    const tau = expectedTau(recipe, category, step);
    for (let i = 0; i < PROMPTS_PER_CATEGORY; i++) {
      const verifySteps = 40 + Math.floor(rng() * 60);
      const promptTau = Math.max(1, Math.min(DRAFT.blockSize, tau + gaussian(rng) * 0.7));
      const acceptedTokens = Math.round(verifySteps * (promptTau - 1));
      results.push({
        key: `step-${step}/${category}-${i}`,
        checkpoint: { step, label: `checkpoint-${step}`, uri },
        promptId: `${category}-${String(i).padStart(3, "0")}`,
        category,
        dataset: "spec-bench-mini",
        verifySteps,
        acceptedTokens,
        draft: DRAFT,
        outputTokPerS: Math.round(38 * (promptTau / 4) * 10) / 10,
        ts,
      });
    }
  }
  return results;
}

/** Where the live training run tells the eval worker about its checkpoints. */
export interface CheckpointSource {
  /** Checkpoints uploaded so far, oldest first: step and artifact URI. */
  checkpoints(): ReadonlyArray<{ step: number; uri: string }>;
  /** True once the run has ended: no checkpoint comes after those listed. */
  finished(): boolean;
}

/** See the module comment. */
export class EvalDemo implements DemoWorker {
  readonly key: string;
  private socket: PitwallSocket | null = null;
  private simS = 0;
  private scored = 0;
  /** Simulated time each pending checkpoint became known. */
  private readonly seenAt = new Map<number, number>();
  private ended = false;

  constructor(
    private readonly ctx: DemoContext,
    private readonly training: CheckpointSource,
  ) {
    this.key = `${ctx.keyPrefix}-eval-run7`;
  }

  async start(): Promise<void> {
    const socket = this.ctx.connect("ct129", "evaluator");
    this.socket = socket;
    socket.send({ type: "hello", client: "pitwall-demo", workerId: "evaluator" });
    socket.send({
      type: "baseline.upsert",
      ...REFERENCE,
      settings: { tree: "ddtree-8", blockSize: 16, category: "coding" },
      sourceUrl: "https://github.com/sgl-project/SpecForge",
    });
    this.pushHistory(socket);
    socket.send({
      type: "run.start",
      run: this.key,
      name: "τ eval · DFlash b16 run 7 checkpoints",
      kind: "eval",
      startedAt: this.ctx.now(),
      tags: ["dflash", "eval", "demo"],
      config: {
        targetModel: "Qwen/Qwen3.6-27B",
        dataset: "spec-bench-mini",
        promptsPerCategory: PROMPTS_PER_CATEGORY,
        ...DRAFT,
      },
    });
    await socket.flush(30_000);
  }

  /** Run 6: a finished training run two days old, its checkpoints and an eval run that scored them. */
  private pushHistory(socket: PitwallSocket): void {
    const day = 86_400_000;
    const startedAt = this.ctx.now() - 2 * day;
    const train = `${this.ctx.keyPrefix}-train-run6`;
    const prefix = checkpointPrefix(this.ctx, "run6");
    socket.send({
      type: "run.start",
      run: train,
      name: "DFlash drafter b16 · Qwen3.6-27B · run 6",
      kind: "training",
      startedAt,
      tags: ["dflash", "drafter", "demo"],
      config: {
        model: "dflash-drafter-b16",
        targetModel: "Qwen/Qwen3.6-27B",
        blockSize: 16,
        peakLr: 2e-4,
        checkpoints: prefix,
      },
    });
    const evalRun = `${this.ctx.keyPrefix}-eval-run6`;
    socket.send({
      type: "run.start",
      run: evalRun,
      name: "τ eval · DFlash b16 run 6 checkpoints",
      kind: "eval",
      startedAt: startedAt + day / 2,
      tags: ["dflash", "eval", "demo"],
      config: { targetModel: "Qwen/Qwen3.6-27B", dataset: "spec-bench-mini", ...DRAFT },
    });
    for (let step = 2_400; step <= 24_000; step += 2_400) {
      const uri = `${prefix}/checkpoint-${String(step).padStart(6, "0")}/`;
      const ts = startedAt + (step / 24_000) * day;
      socket.send({
        type: "run.artifact",
        run: train,
        kind: "checkpoint",
        uri,
        step,
        sizeBytes: 9.31e9,
        ts,
      });
      socket.send({
        type: "run.eval",
        run: evalRun,
        results: scoreCheckpoint(this.ctx.rng, RUN6, step, uri, ts + 600_000),
      });
    }
    socket.send({ type: "run.end", run: train, status: "succeeded", endedAt: startedAt + day });
    socket.send({
      type: "run.end",
      run: evalRun,
      status: "succeeded",
      endedAt: startedAt + day + 3_600_000,
    });
  }

  tick(simDtS: number, nowMs: number): void {
    const socket = this.socket;
    if (this.ended || !socket) return;
    this.simS += simDtS;
    const checkpoints = this.training.checkpoints();
    for (const c of checkpoints.slice(this.scored)) {
      if (!this.seenAt.has(c.step)) this.seenAt.set(c.step, this.simS);
      if (this.simS - this.seenAt.get(c.step)! < SCORE_DELAY_S) break;
      socket.send({
        type: "run.eval",
        run: this.key,
        results: scoreCheckpoint(this.ctx.rng, RUN7, c.step, c.uri, nowMs),
      });
      socket.send({
        type: "run.event",
        run: this.key,
        ts: nowMs,
        message: `scored checkpoint-${c.step}: ${CATEGORIES.length * PROMPTS_PER_CATEGORY} prompts`,
      });
      if (this.scored === 0)
        this.ctx.note(
          `evals: first checkpoint of run 7 scored (step ${c.step}); τ by checkpoint on /evals`,
        );
      this.scored++;
    }
    // Training over and every checkpoint scored: the eval run is done (it went stale before).
    if (this.training.finished() && this.scored === checkpoints.length) {
      this.ended = true;
      socket.send({
        type: "run.end",
        run: this.key,
        status: "succeeded",
        endedAt: nowMs,
      });
      this.ctx.note(`evals: all ${this.scored} checkpoints of run 7 scored`);
    }
  }

  async stop(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.socket?.send({
      type: "run.end",
      run: this.key,
      status: "cancelled",
      error: "the demo was stopped",
      endedAt: this.ctx.now(),
    });
  }

  gpus(): GpuReading[] {
    return [];
  }

  summary(): string {
    return `evals: ${this.scored} checkpoint${this.scored === 1 ? "" : "s"} of run 7 scored`;
  }
}
