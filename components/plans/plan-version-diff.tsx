"use client";

import { Minus, Pencil, Plus } from "lucide-react";
import Link from "next/link";
import { useState } from "react";

import { planStateLabel } from "@/components/plans/plan-state-badge";
import { RelativeTime } from "@/components/runs/relative-time";
import { PriorityBadge } from "@/components/sessions/priority-badge";
import { planPath } from "@/lib/paths";
import { foldUnchanged } from "@/lib/plans/diff-hunks";
import { cn } from "@/lib/utils";
import type {
  PlanBodyDiffLine,
  PlanVersionDiffView,
  PlanVersionItemsDiff,
} from "@/lib/view-models/plans";

/**
 * What changed since the version this plan supersedes: a link to that version, the markdown's
 * line diff (unchanged stretches folded, each fold expandable) and the items added, removed and
 * changed. Used on the plan page and in the inbox.
 */
export function PlanVersionDiff({ diff }: { diff: PlanVersionDiffView }) {
  const { previous, items } = diff;
  return (
    <section aria-label="Changes since the previous version" className="grid gap-3 text-[13px]">
      <p className="text-muted-fg">
        Revises{" "}
        <Link
          href={planPath(previous.id)}
          className="font-medium text-link underline-offset-4 hover:underline"
        >
          the previous version
        </Link>{" "}
        ({previous.title}, {planStateLabel(previous.state).toLowerCase()},{" "}
        <RelativeTime iso={previous.proposedAt} />
        ).
      </p>
      <div className="grid gap-1">
        <h3 className="text-xs font-semibold text-muted-fg uppercase">Plan text</h3>
        {!diff.bodyChanged ? (
          <p className="text-muted-fg" data-testid="plan-body-unchanged">
            Unchanged.
          </p>
        ) : diff.body === null ? (
          <p className="text-muted-fg">Rewritten: too different to compare line by line.</p>
        ) : (
          <BodyDiff lines={diff.body} />
        )}
      </div>
      <div className="grid gap-1">
        <h3 className="text-xs font-semibold text-muted-fg uppercase">
          Items{" "}
          <span className="font-normal normal-case tabular-nums">
            ({items.added} added, {items.removed} removed, {items.changed} changed)
          </span>
        </h3>
        <ItemsDiff items={items} />
      </div>
    </section>
  );
}

const lineTone: Record<PlanBodyDiffLine["kind"], string> = {
  same: "",
  added: "bg-succeeded-bg text-succeeded",
  removed: "bg-failed-bg text-failed",
};

function BodyDiff({ lines }: { lines: PlanBodyDiffLine[] }) {
  const [shown, setShown] = useState<ReadonlySet<number>>(new Set());
  const segments = foldUnchanged(lines);
  return (
    <div
      tabIndex={0}
      role="region"
      aria-label="Plan text diff"
      data-testid="plan-body-diff"
      className="max-h-96 overflow-auto rounded border border-border font-mono text-xs leading-5"
    >
      {segments.map((seg, s) =>
        seg.kind === "folded" && !shown.has(s) ? (
          <button
            key={s}
            type="button"
            onClick={() => setShown(new Set(shown).add(s))}
            className="block min-h-8 w-full bg-muted/50 px-2 text-left text-muted-fg hover:bg-muted"
          >
            {seg.count} unchanged lines
          </button>
        ) : (
          seg.lines.map((l, i) => <DiffLine key={`${s}-${i}`} line={l} />)
        ),
      )}
    </div>
  );
}

function DiffLine({ line }: { line: PlanBodyDiffLine }) {
  const mark = line.kind === "added" ? "+" : line.kind === "removed" ? "-" : " ";
  return (
    <div
      data-diff={line.kind}
      className={cn("flex gap-2 px-2 break-all whitespace-pre-wrap", lineTone[line.kind])}
    >
      <span aria-hidden className="w-8 shrink-0 text-right text-muted-fg tabular-nums select-none">
        {line.newLine ?? line.oldLine}
      </span>
      <span aria-hidden className="w-3 shrink-0 select-none">
        {mark}
      </span>
      <span className="sr-only">{line.kind === "same" ? "" : `${line.kind}: `}</span>
      <span className="min-w-0 flex-1">{line.text}</span>
    </div>
  );
}

function ItemsDiff({ items }: { items: PlanVersionItemsDiff }) {
  return (
    <ol aria-label="Items against the previous version" className="grid gap-1 leading-5">
      {items.changes.map((c, i) => (
        <li
          key={i}
          data-change={c.kind}
          className={cn("flex items-start gap-2", c.kind === "removed" && "text-muted-fg")}
        >
          <span className="mt-0.5 shrink-0">
            {c.kind === "added" ? (
              <Plus aria-hidden className="size-3.5 text-succeeded" />
            ) : c.kind === "removed" ? (
              <Minus aria-hidden className="size-3.5 text-failed" />
            ) : c.kind === "changed" ? (
              <Pencil aria-hidden className="size-3.5 text-running" />
            ) : (
              <span aria-hidden className="block size-3.5" />
            )}
          </span>
          <span className="min-w-0 flex-1 break-words whitespace-pre-wrap">
            {c.kind === "changed" && c.from && c.from.content !== c.item.content && (
              <>
                <del className="text-muted-fg">{c.from.content}</del>
                <span className="text-muted-fg"> → </span>
              </>
            )}
            {c.kind === "removed" ? <del>{c.item.content}</del> : c.item.content}
            {c.kind !== "same" && (
              <span className="ml-1.5 text-xs text-muted-fg">
                {c.kind}
                {c.kind === "changed" &&
                  c.from &&
                  c.from.priority !== c.item.priority &&
                  `, priority ${c.from.priority ?? "none"} → ${c.item.priority ?? "none"}`}
              </span>
            )}
          </span>
          <PriorityBadge priority={c.item.priority} className="mt-0.5 shrink-0" />
        </li>
      ))}
    </ol>
  );
}
