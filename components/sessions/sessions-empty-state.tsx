import { ListTodo } from "lucide-react";
import type { ReactNode } from "react";

import { CopyButton } from "@/components/ui/copy-button";

function Command({
  title,
  command,
  children,
}: {
  title: string;
  command: string;
  children?: ReactNode;
}) {
  return (
    <li className="flex min-w-0 flex-col gap-1.5">
      <div className="text-sm font-medium">{title}</div>
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

/** Shown on /sessions before any session exists: the exact commands that bring todo lists in. */
export function SessionsEmptyState({ origin }: { origin: string }) {
  const env = `${origin === "http://localhost:8080" ? "" : `PITWALL_URL=${origin} `}PITWALL_TOKEN=<token>`;
  const push = `curl -sS -X POST ${origin}/api/ingest -H "Authorization: Bearer <token>" -H "Content-Type: application/json" \\
  -d '[{"v":1, "id":"todo-1", "type":"session.todos", "session":"my-agent-1", "source":"pushed", "title":"Qwen sweep",
        "seq":1, "ts":'$(date +%s000)', "items":[{"content":"Run throughput sweep C=1..100", "status":"in_progress"}]}]'`;
  return (
    <div className="mx-auto flex w-full max-w-4xl flex-col gap-6 rounded-lg border border-border bg-card p-6">
      <div className="flex items-start gap-3">
        <span className="rounded-md bg-muted p-2 text-muted-fg">
          <ListTodo aria-hidden className="size-5" />
        </span>
        <div className="min-w-0">
          <h2 className="text-base font-semibold">No agent sessions yet</h2>
          <p className="text-sm text-muted-fg">
            A session is a coding agent&apos;s todo list over time. Import a Claude Code or opencode
            session, or let the agent push each todo write. Get a token first with{" "}
            <code className="font-mono text-xs">npx pitwall token create $(hostname)</code>.
          </p>
        </div>
      </div>
      <ol className="flex min-w-0 flex-col gap-5">
        <Command
          title="Import a Claude Code session"
          command={`${env} npx pitwall import ~/.claude/projects/<project>/<session-id>.jsonl`}
        />
        <Command
          title="Import an opencode session"
          command={`opencode export <session-id> > session.json && ${env} npx pitwall import session.json`}
        />
        <Command title="…or push a todo list from any agent" command={push} />
      </ol>
    </div>
  );
}
