import { Terminal } from "lucide-react";
import type { ReactNode } from "react";

import { CopyButton } from "@/components/ui/copy-button";

/** The frames of a minimal benchmark run, as a worker would send them (run.start → run.benchmark → run.end). */
export function exampleIngestFrames(): string {
  return `[
  {"v":1, "id":"demo-1", "type":"run.start", "run":"demo-sweep", "name":"demo sweep",
   "kind":"benchmark", "config":{"model":"Qwen/Qwen3-8B", "engine":"sglang", "tp":1}},
  {"v":1, "id":"demo-2", "type":"run.benchmark", "run":"demo-sweep", "points":[
   {"key":"c1", "concurrency":1, "completed":8, "outputTokPerS":26.5, "tpotMsMedian":37.7},
   {"key":"c32", "concurrency":32, "completed":256, "outputTokPerS":577.8, "tpotMsMedian":52.1}]},
  {"v":1, "id":"demo-3", "type":"run.end", "run":"demo-sweep", "status":"succeeded"}
]`;
}

function Step({
  n,
  title,
  command,
  children,
}: {
  n: number;
  title: string;
  command: string;
  children?: ReactNode;
}) {
  return (
    <li className="flex min-w-0 flex-col gap-1.5">
      <div className="text-sm font-medium">
        <span className="mr-2 inline-flex size-5 items-center justify-center rounded-full bg-muted text-xs text-muted-fg tabular-nums">
          {n}
        </span>
        {title}
      </div>
      {children}
      <div className="flex items-start gap-1 rounded-md border border-border bg-muted/60 py-1.5 pr-1 pl-3">
        <pre className="min-w-0 flex-1 overflow-x-auto py-0.5 font-mono text-xs leading-5 whitespace-pre">
          {command}
        </pre>
        <CopyButton text={command} label={`Copy: ${title}`} />
      </div>
    </li>
  );
}

/** Shown on /runs before any run exists: the exact commands that get data in. */
export function RunsEmptyState({ origin }: { origin: string }) {
  const urlPrefix = origin === "http://localhost:8080" ? "" : `PITWALL_URL=${origin} `;
  const curl = `curl -sS -X POST ${origin}/api/ingest \\
  -H "Authorization: Bearer <token>" \\
  -H "Content-Type: application/json" \\
  -d '${exampleIngestFrames()}'`;
  return (
    <div className="mx-auto flex w-full max-w-4xl flex-col gap-6 rounded-lg border border-border bg-card p-6">
      <div className="flex items-start gap-3">
        <span className="rounded-md bg-muted p-2 text-muted-fg">
          <Terminal aria-hidden className="size-5" />
        </span>
        <div className="min-w-0">
          <h2 className="text-base font-semibold">No runs yet</h2>
          <p className="text-sm text-muted-fg">
            Runs appear here live as workers push them. Create a token for the host that runs the
            benchmark, then import a results file or push frames yourself.
          </p>
        </div>
      </div>
      <ol className="flex min-w-0 flex-col gap-5">
        <Step
          n={1}
          title="Create a worker token for this host"
          command="npx pitwall token create $(hostname)"
        >
          <p className="text-xs text-muted-fg">
            Run it where Pitwall is installed; it prints the token once.
          </p>
        </Step>
        <Step
          n={2}
          title="Import SGLang bench_serving or vLLM bench serve results"
          command={`${urlPrefix}PITWALL_TOKEN=<token> npx pitwall import results.jsonl`}
        />
        <Step n={3} title="…or push frames from any script with curl" command={curl}>
          <p className="text-xs text-muted-fg">
            A run is <code className="font-mono">run.start</code>, then{" "}
            <code className="font-mono">run.benchmark</code> points, then{" "}
            <code className="font-mono">run.end</code>; every frame has{" "}
            <code className="font-mono">v: 1</code> and its own{" "}
            <code className="font-mono">id</code>.
          </p>
        </Step>
      </ol>
    </div>
  );
}
