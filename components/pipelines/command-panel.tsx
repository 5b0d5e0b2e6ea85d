import { CopyButton } from "@/components/ui/copy-button";
import { cn } from "@/lib/utils";
import type { CommandView } from "@/lib/view-models/pipeline";

import { OutputTail } from "./output-tail";

/** What `pitwall run` ran: command line, working directory, git commit, exit code, and the output tail (live while it runs, searchable). */
export function CommandPanel({ command, running }: { command: CommandView; running: boolean }) {
  const exit = command.exitCode;
  return (
    <div className="grid gap-3">
      {/* Output pushed by a job that is not a `pitwall run` command: no command facts to show. */}
      {(command.command || command.cwd || command.gitCommit || command.exitCode !== null) && (
        <dl className="grid grid-cols-[6.5rem_minmax(0,1fr)] gap-x-4 gap-y-1.5 text-[13px]">
          {command.command && (
            <>
              <dt className="text-muted-fg">Command</dt>
              <dd className="flex min-w-0 items-start gap-1">
                <code className="min-w-0 flex-1 rounded bg-muted px-1.5 py-0.5 font-mono text-xs break-all">
                  {command.command}
                </code>
                <CopyButton text={command.command} label="Copy command" />
              </dd>
            </>
          )}
          {command.cwd && (
            <>
              <dt className="text-muted-fg">Directory</dt>
              <dd className="font-mono text-xs break-all">{command.cwd}</dd>
            </>
          )}
          {command.gitCommit && (
            <>
              <dt className="text-muted-fg">Git commit</dt>
              <dd className="font-mono text-xs" title={command.gitCommit}>
                {command.gitCommit.slice(0, 12)}
              </dd>
            </>
          )}
          <dt className="text-muted-fg">Exit code</dt>
          <dd
            className={cn(
              "font-mono text-xs tabular-nums",
              exit !== null && exit !== 0 && "font-semibold text-failed",
              exit === 0 && "text-succeeded",
            )}
          >
            {exit !== null ? exit : running ? "still running" : "not reported"}
          </dd>
        </dl>
      )}
      {command.outputTail.length > 0 && <OutputTail lines={command.outputTail} live={running} />}
    </div>
  );
}
