import { ClipboardCheck } from "lucide-react";

import { CopyButton } from "@/components/ui/copy-button";

/** An example plan.json an agent writes before asking for a decision. */
export const EXAMPLE_PLAN_JSON = `{
  "title": "Next: hidden-state extraction",
  "rationale": "The throughput sweep is done (577.8 tok/s peak at C=32).",
  "items": [
    {"content": "Extract hidden states for 914K samples on 4 GPUs", "priority": "high"},
    {"content": "Upload each file to S3, max 100 in flight", "priority": "medium"}
  ]
}`;

/** Shown on /plans before any plan exists: how an agent proposes one and waits for the decision. */
export function PlansEmptyState({ origin }: { origin: string }) {
  const env = `${origin === "http://localhost:8080" ? "" : `PITWALL_URL=${origin} `}PITWALL_TOKEN=<token>`;
  const command = `${env} npx pitwall plan propose plan.json --wait`;
  return (
    <div className="mx-auto flex w-full max-w-4xl flex-col gap-5 rounded-lg border border-border bg-card p-6">
      <div className="flex items-start gap-3">
        <span className="rounded-md bg-muted p-2 text-muted-fg">
          <ClipboardCheck aria-hidden className="size-5" />
        </span>
        <div className="min-w-0">
          <h2 className="text-base font-semibold">No plans yet</h2>
          <p className="text-sm text-muted-fg">
            An agent proposes its next steps and waits; someone approves, edits or rejects them
            here, and the agent continues with the decided items. Add{" "}
            <code className="font-mono text-xs">&quot;session&quot;</code> or{" "}
            <code className="font-mono text-xs">&quot;run&quot;</code> keys to link the plan.
          </p>
        </div>
      </div>
      <div className="grid gap-1.5">
        <div className="text-sm font-medium">1. The agent writes plan.json</div>
        <div className="flex items-start gap-1 rounded-md border border-border bg-muted/60 py-1.5 pr-1 pl-3">
          <pre className="min-w-0 flex-1 overflow-x-auto py-0.5 font-mono text-xs leading-5 whitespace-pre">
            {EXAMPLE_PLAN_JSON}
          </pre>
          <CopyButton text={EXAMPLE_PLAN_JSON} label="Copy plan.json" />
        </div>
      </div>
      <div className="grid gap-1.5">
        <div className="text-sm font-medium">2. …and waits for the decision</div>
        <p className="text-xs text-muted-fg">
          Prints the decided items as JSON; exits 0 approved, 3 changes requested, 4 rejected, 5
          expired.
        </p>
        <div className="flex items-start gap-1 rounded-md border border-border bg-muted/60 py-1.5 pr-1 pl-3">
          <pre className="min-w-0 flex-1 overflow-x-auto py-0.5 font-mono text-xs leading-5 whitespace-pre">
            {command}
          </pre>
          <CopyButton text={command} label="Copy command" />
        </div>
      </div>
    </div>
  );
}
