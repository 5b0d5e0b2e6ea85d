import { Asterisk, SquareTerminal, Upload, type LucideIcon } from "lucide-react";

import { cn } from "@/lib/utils";
import type { SessionSource } from "@/lib/view-models/sessions";

const SOURCES: Record<SessionSource, { label: string; icon: LucideIcon; title: string }> = {
  opencode: {
    label: "opencode",
    icon: SquareTerminal,
    title: "Imported from an `opencode export` file",
  },
  "claude-code": {
    label: "Claude Code",
    icon: Asterisk,
    title: "Imported from a Claude Code transcript (~/.claude/projects/…/<session>.jsonl)",
  },
  pushed: {
    label: "pushed",
    icon: Upload,
    title: "Pushed live by a worker (session.todos frames)",
  },
};

/** Display name of a session source ("Claude Code"). */
export function sessionSourceLabel(source: SessionSource): string {
  return SOURCES[source].label;
}

/** Where a session's todo lists come from, as icon and name. */
export function SessionSourceLabel({
  source,
  className,
  iconOnly = false,
}: {
  source: SessionSource;
  className?: string;
  iconOnly?: boolean;
}) {
  const s = SOURCES[source];
  const Icon = s.icon;
  return (
    <span
      className={cn("inline-flex items-center gap-1.5 whitespace-nowrap", className)}
      title={s.title}
    >
      <Icon aria-hidden className="size-3.5 shrink-0 text-muted-fg" />
      {iconOnly ? <span className="sr-only">{s.label}</span> : s.label}
    </span>
  );
}
