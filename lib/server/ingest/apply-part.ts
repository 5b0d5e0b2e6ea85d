import { notOwnerMessage } from "@/lib/server/auth/ownership";
import { closeSessionInboxItems, closeSessionNotices } from "@/lib/server/repositories/inbox-agent";
import { closeSessionPlans } from "@/lib/server/repositories/plan-orphans";

import { refersToRun, type PartState } from "./group-admission";
import { GroupWrites } from "./group-writes";
import { upsertBaseline } from "./writers/evals";
import {
  appendOutput,
  endRun,
  loadRuns,
  upsertArtifact,
  upsertRun,
  type StoredRun,
} from "./writers/runs";
import { applyActivity, applyTodos, noteSessionSignal, proposePlan } from "./writers/sessions";
import { recordUnapprovedWork } from "./writers/unapproved-work";

/** Step 3 for one part: applies its claimed frames (`toApply`, indexes in order) as its principal. */
export async function applyPart(
  writes: GroupWrites,
  s: PartState,
  toApply: number[],
): Promise<void> {
  const { client, at, topics } = writes;
  const { principal, frames } = s.part;
  const { lostRace } = s;
  const runOf = (key: string) => s.started.get(key) ?? s.stored.get(key);
  const refuse = (i: number, run: StoredRun) => {
    const f = frames[i]!;
    s.outcomes.set(i, {
      id: f.id,
      ok: false,
      code: "forbidden",
      message: notOwnerMessage("run", run.key, run.owner, principal),
    });
    s.released.push(f.id);
  };

  for (const i of toApply) {
    const f = frames[i]!;
    const lost = f.type === "run.start" || refersToRun(f) ? lostRace.get(f.run) : undefined;
    if (lost) {
      refuse(i, lost);
      continue;
    }
    await writes.before(f.type);
    const run = refersToRun(f) ? runOf(f.run) : undefined;
    switch (f.type) {
      case "hello":
        break;
      case "heartbeat":
        writes.heartbeat({ hostId: principal.hostId, frame: f });
        if (f.sessions?.length) {
          const touched = await noteSessionSignal(
            client,
            principal.hostId,
            f.sessions,
            f.ts !== undefined ? new Date(f.ts) : at,
          );
          for (const id of touched) topics.add(`session:${id}`);
          if (touched.length) topics.add("sessions");
        }
        break;
      case "run.start": {
        const started = await upsertRun(client, principal, f, at);
        if (!started) {
          const owned = (await loadRuns(client, [f.run])).get(f.run)!;
          lostRace.set(f.run, owned);
          refuse(i, owned);
          continue;
        }
        s.started.set(f.run, started);
        topics.add("runs").add(`run:${started.id}`);
        if (started.sessionId) topics.add(`session:${started.sessionId}`);
        break;
      }
      case "run.benchmark":
        for (const point of f.points) writes.point(run!.id, point);
        break;
      case "run.metrics":
        writes.metricFrame({ runId: run!.id, points: f.points });
        break;
      case "run.progress":
        writes.progressFrame({ runId: run!.id, frame: f });
        break;
      case "run.artifact":
        await upsertArtifact(client, run!.id, f, at);
        // A checkpoint artifact can attribute already scored evals to its training run (/evals, lineage).
        if (f.kind === "checkpoint") topics.add("evals");
        break;
      case "run.event":
        writes.event({ runId: run!.id, event: f });
        break;
      case "run.output":
        await appendOutput(client, run!.id, f.lines, at);
        break;
      case "run.end":
        await endRun(client, run!.id, f, at);
        topics.add("runs");
        break;
      case "run.eval":
        for (const result of f.results) writes.evalResult(run!.id, result);
        topics.add("evals");
        break;
      case "baseline.upsert":
        await upsertBaseline(client, f, at, principal.hostId, principal.shared);
        topics.add("baselines");
        break;
      case "session.todos": {
        const sessionId = await applyTodos(client, principal, f);
        topics.add("sessions").add(`session:${sessionId}`);
        break;
      }
      case "session.activity": {
        const sessionId = await applyActivity(client, principal, f);
        topics.add("sessions").add(`session:${sessionId}`);
        // The agent ended: nobody waits for its proposed plans any more.
        if (f.state === "ended" && (await closeSessionPlans(client, sessionId, at)))
          topics.add("plans").add("inbox");
        if (f.state === "ended" && (await closeSessionInboxItems(client, sessionId, at)))
          topics.add("inbox");
        // Working again: a "waiting for your input" notice is over.
        if (f.state === "working" && (await closeSessionNotices(client, sessionId, at)))
          topics.add("inbox");
        // A tool that edits or runs while a plan of the session waits: worked without approval.
        if (f.tool !== undefined) {
          const flagged = await recordUnapprovedWork(
            client,
            sessionId,
            f.tool,
            f.detail ?? null,
            new Date(f.ts),
          );
          // "inbox": the audit (inbox history) lists the flag.
          for (const planId of flagged) topics.add("plans").add("inbox").add(`plan:${planId}`);
        }
        break;
      }
      case "plan.propose": {
        // A decided plan is immutable: proposing under its key again changes nothing, and the
        // proposer's connection is sent the decision (see IngestConnection).
        // Linking to another host's run is allowed, also to one that won a create race.
        const linked = f.run !== undefined ? (runOf(f.run) ?? lostRace.get(f.run))!.id : null;
        const result = await proposePlan(client, principal, f, linked, at);
        if (result.ok) topics.add("plans").add("inbox").add(`plan:${result.planId}`);
        break;
      }
      default:
        f satisfies never;
    }
    if (run) {
      writes.touched.add(run.id);
      topics.add(`run:${run.id}`);
    }
    s.outcomes.set(i, { id: f.id, ok: true, duplicate: false });
  }
}
