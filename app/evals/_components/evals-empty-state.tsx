"use client";

import { FlaskConical } from "lucide-react";
import Link from "next/link";

import { BASELINES_PATH } from "@/lib/paths";

/** What the evals page shows before any eval exists: what to push or import, and where baselines come from. */
export function EvalsEmptyState() {
  return (
    <div className="mx-auto flex w-full max-w-3xl flex-col gap-4 rounded-lg border border-border bg-card p-6">
      <div className="flex items-start gap-3">
        <span className="rounded-md bg-muted p-2 text-muted-fg">
          <FlaskConical aria-hidden className="size-5" />
        </span>
        <div className="grid gap-1">
          <h2 className="text-base font-semibold">No drafter evals yet</h2>
          <p className="text-sm text-muted-fg">
            Checkpoints appear here, scored by acceptance length τ, as soon as a worker pushes{" "}
            <code className="font-mono text-xs">run.eval</code> results (checkpoint, prompt, verify
            steps, accepted draft tokens). A training run that also pushes{" "}
            <code className="font-mono text-xs">run.artifact</code> for each checkpoint gets the
            scores of any eval run that names the checkpoint&apos;s URI.
          </p>
        </div>
      </div>
      <div className="rounded-md border border-border bg-muted/60 px-3 py-2 font-mono text-xs">
        PITWALL_TOKEN=&lt;token&gt; npx pitwall import results_20260101_120000.jsonl
      </div>
      <p className="text-xs text-muted-fg">
        Imports SpecForge <code className="font-mono">bench_eagle3.py</code> results (and SGLang
        server logs with <code className="font-mono">accept len</code>).{" "}
        <Link href={BASELINES_PATH} className="text-link underline-offset-4 hover:underline">
          Add a τ baseline
        </Link>{" "}
        to draw the reference line.
      </p>
    </div>
  );
}
