import type { PitwallSocket } from "@/lib/client";

import type { DemoContext, DemoWorker, GpuReading } from "./context";

/**
 * An AI coding-agent session on `kpro5` that keeps a todo list (`session.todos`, rewritten whole at
 * each update as opencode's todowrite does): every ten simulated minutes one item finishes and the
 * next starts, new items appear, and once the list is done the agent proposes a next-step plan
 * (`plan.propose`) that waits on /plans for a person to decide. A second session on `ct129` sits
 * waiting on its plan from the start, so the overview's "waiting for a person" card is never empty.
 */

const STEP_S = 10 * 60;

const TODOS: ReadonlyArray<{
  content: string;
  priority: "high" | "medium" | "low";
  activeForm: string;
}> = [
  {
    content: "Check the extraction's upload backlog on kpro5 (s3.inflight vs the 100 limit)",
    priority: "high",
    activeForm: "Checking the upload backlog",
  },
  {
    content: "Restart gpu2's worker under a new boot id and confirm the counters stay monotonic",
    priority: "high",
    activeForm: "Restarting gpu2's worker",
  },
  {
    content: "Verify local deletes never run ahead of uploads (local.deleted ≤ s3.uploaded)",
    priority: "medium",
    activeForm: "Verifying deletes against uploads",
  },
  {
    content: "Score run 7's newest checkpoint on coding, math and chat prompts",
    priority: "medium",
    activeForm: "Scoring the newest checkpoint",
  },
  {
    content: "Write the hand-off note: ETA, disk free, failed uploads",
    priority: "low",
    activeForm: "Writing the hand-off note",
  },
];

type Status = "pending" | "in_progress" | "completed";

/** See the module comment. */
export class AgentDemo implements DemoWorker {
  private socket: PitwallSocket | null = null;
  private waitingSocket: PitwallSocket | null = null;
  private simS = 0;
  private seq = 0;
  private shown = 3;
  private done = 0;
  private proposed = false;
  private readonly session: string;
  private readonly waitingSession: string;

  constructor(private readonly ctx: DemoContext) {
    this.session = `${ctx.keyPrefix}-agent`;
    this.waitingSession = `${ctx.keyPrefix}-agent-eval`;
  }

  async start(): Promise<void> {
    this.socket = this.ctx.connect("kpro5", "agent");
    this.sendTodos();
    this.waitingSocket = this.ctx.connect("ct129", "agent");
    const ts = this.ctx.now();
    this.waitingSocket.send({
      type: "session.todos",
      session: this.waitingSession,
      source: "opencode",
      title: "Evaluate DFlash run 7 against the 12.4 reference",
      seq: 1,
      ts,
      items: [
        {
          content: "Score checkpoints 0-8000 of run 7 on spec-bench-mini",
          status: "completed",
          priority: "high",
        },
        {
          content: "Compare τ by category with the coding-only reference",
          status: "completed",
          priority: "medium",
        },
        { content: "Propose the next training change", status: "in_progress", priority: "medium" },
      ],
    });
    this.waitingSocket.send({
      type: "plan.propose",
      plan: `${this.waitingSession}-plan`,
      session: this.waitingSession,
      title: "Raise the drafter's block size to 32 for run 8",
      rationale:
        "Run 7's τ plateaus below the 12.4 coding reference; chat and math lag most. A larger block lets the drafter accept longer runs.",
      items: [
        {
          content: "Start run 8 from run 7's checkpoint 8000 with block size 32",
          priority: "high",
        },
        {
          content: "Keep the cosine schedule, peak lr 3e-4, checkpoint every 30 min",
          priority: "medium",
        },
        {
          content: "Score every checkpoint per category against the 12.4 reference",
          priority: "medium",
        },
      ],
      expiresInS: 30 * 86_400,
    });
    await Promise.all([this.socket.flush(30_000), this.waitingSocket.flush(30_000)]);
  }

  private status(i: number): Status {
    return i < this.done ? "completed" : i === this.done ? "in_progress" : "pending";
  }

  private sendTodos(): void {
    this.seq++;
    this.socket?.send({
      type: "session.todos",
      session: this.session,
      source: "opencode",
      title: "Keep the kpro5 extraction healthy",
      seq: this.seq,
      ts: this.ctx.now(),
      items: TODOS.slice(0, this.shown).map((t, i) => ({
        content: t.content,
        status: this.status(i),
        priority: t.priority,
        activeForm: t.activeForm,
      })),
    });
  }

  tick(simDtS: number): void {
    if (!this.socket || this.proposed) return;
    this.simS += simDtS;
    const steps = Math.floor(this.simS / STEP_S);
    if (steps <= this.done) return;
    this.done = Math.min(TODOS.length, steps);
    this.shown = Math.min(TODOS.length, Math.max(this.shown, this.done + 2));
    this.sendTodos();
    if (this.done >= TODOS.length) {
      this.proposed = true;
      this.socket.send({
        type: "plan.propose",
        plan: `${this.session}-plan`,
        session: this.session,
        title: "Resume shards 610k-914k on kpro5 after the upload backlog clears",
        rationale:
          "Uploads caught up and no file was deleted before its upload; disk free is back above 2 TB.",
        items: [
          { content: "Resume extraction at sample 610,000 on gpu0-gpu3", priority: "high" },
          { content: "After upload remove local data; max 100 parallel uploads", priority: "high" },
          { content: "Alert if disk free drops under 500 GB", priority: "low" },
        ],
        expiresInS: 7 * 86_400,
      });
      this.ctx.note(
        "the agent session on kpro5 finished its todo list and proposed a plan: decide it on /plans",
      );
    }
  }

  /** Ends both sessions (their waiting plans close as "agent ended", as a real agent's exit does). */
  async stop(): Promise<void> {
    for (const [socket, session] of [
      [this.socket, this.session],
      [this.waitingSocket, this.waitingSession],
    ] as const)
      socket?.send({
        type: "session.activity",
        session,
        source: "opencode",
        state: "ended",
        ts: this.ctx.now(),
      });
    await Promise.all([
      this.socket?.flush(10_000).catch(() => undefined),
      this.waitingSocket?.flush(10_000).catch(() => undefined),
    ]);
  }

  gpus(): GpuReading[] {
    return [];
  }

  summary(): string {
    return `agent ${this.done}/${TODOS.length} todos${this.proposed ? ", plan waiting" : ""}`;
  }
}
