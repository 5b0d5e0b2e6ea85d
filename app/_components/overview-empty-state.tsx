import { Activity } from "lucide-react";
import type { ReactNode } from "react";

import { CopyButton } from "@/components/ui/copy-button";

function Step({
  n,
  title,
  command,
  children,
  after,
}: {
  n: number;
  title: string;
  command: string;
  children?: ReactNode;
  after?: ReactNode;
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
      {after}
    </li>
  );
}

/** The overview before anything ran: the exact commands that start watching a job. */
export function OverviewEmptyState({ origin }: { origin: string }) {
  const url = origin === "http://localhost:8080" ? "" : `PITWALL_URL=${origin} `;
  const curl = `curl -sS -X POST ${origin}/api/ingest \\
  -H "Authorization: Bearer <token>" -H "Content-Type: application/json" \\
  -d '[{"v":1,"id":"p1","type":"run.start","run":"extract-1","name":"hidden states","kind":"extraction","total":914000,"unit":"samples"},
       {"v":1,"id":"p2","type":"run.progress","run":"extract-1","workerId":"gpu0","bootId":"b1","done":1200,
        "counters":{"s3.uploaded":1150,"s3.inflight":40}}]'`;
  return (
    <div className="mx-auto flex w-full max-w-4xl flex-col gap-6 rounded-lg border border-border bg-card p-6">
      <div className="flex items-start gap-3">
        <span className="rounded-md bg-muted p-2 text-muted-fg">
          <Activity aria-hidden className="size-5" />
        </span>
        <div className="min-w-0">
          <h2 className="text-base font-semibold">Nothing is being watched yet</h2>
          <p className="text-sm text-muted-fg">
            Runs, hosts and alerts show up here live as soon as a worker pushes them. Create a token
            on the machine doing the work, then wrap your command or push from Python.
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
          title="Watch any command: progress, exit code, output tail, host heartbeats"
          command={`${url}PITWALL_TOKEN=<token> npx pitwall run --kind extraction \\
  --name "hidden states" --total 914000 --unit samples -- python extract.py`}
        >
          <p className="text-xs text-muted-fg">
            It passes the output through unchanged and exits with the command&apos;s exit code; see{" "}
            <code className="font-mono">docs/worker-clients.md</code> for progress lines.
          </p>
        </Step>
        <Step
          n={3}
          title="…or report from Python: copy the one-file client (stdlib only) next to your script"
          command="scp clients/python/pitwall.py gpu-host:~/jobs/"
          after={
            <pre className="overflow-x-auto rounded-md border border-border bg-muted/40 px-3 py-2 font-mono text-xs leading-5">{`from pitwall import Pitwall   # PITWALL_URL, PITWALL_TOKEN from the environment
with Pitwall().run(kind="extraction", name="hidden states", total=914000, unit="samples") as run:
    run.progress(done, counters={"s3.uploaded": n_up, "s3.inflight": k, "local.deleted": d})
    run.metrics(step, loss=loss)`}</pre>
          }
        />
        <Step n={4} title="…or push frames from any script with curl" command={curl} />
      </ol>
    </div>
  );
}
