"use client";

import { Pager, usePaged } from "@/components/ui/pager";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { formatCount, formatTokPerS } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { EvalTableRow } from "@/lib/view-models/evals";

import { checkpointName, formatTau } from "./format";
import { NO_CATEGORY } from "./tau-category-bars";

/** Checkpoints per page the table offers (the first is the default). */
const CHECKPOINT_PAGE_SIZES = [5, 10, 25, 50] as const;

/** The rows grouped by checkpoint (a total row and its category rows stay together), latest checkpoint first. */
function newestFirst(rows: readonly EvalTableRow[]): EvalTableRow[][] {
  const groups: EvalTableRow[][] = [];
  for (const r of rows) {
    const last = groups[groups.length - 1];
    if (last && last[0]!.checkpointKey === r.checkpointKey) last.push(r);
    else groups.push([r]);
  }
  // Rows come by step (nulls last): reverse to the latest step first, keeping unnamed ones at the end.
  const stepped = groups.filter((g) => g[0]!.step !== null).reverse();
  return [...stepped, ...groups.filter((g) => g[0]!.step === null)];
}

/**
 * Checkpoint × category table, latest checkpoint first and paged by checkpoint (5 a page by
 * default): each checkpoint's total over all categories (bold), then one row per category, with
 * the raw counts every τ is computed from (τ = tokens produced / verify steps).
 */
export function EvalTable({ rows }: { rows: readonly EvalTableRow[] }) {
  const anyTokPerS = rows.some((r) => r.meanOutputTokPerS !== null);
  const paged = usePaged(newestFirst(rows), CHECKPOINT_PAGE_SIZES);
  return (
    <>
      <Table data-testid="eval-table">
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Checkpoint</TableHead>
            <TableHead>Category</TableHead>
            <TableHead className="text-right" title="tokens produced / verify steps">
              Acceptance length τ
            </TableHead>
            <TableHead className="text-right" title="target forward passes (draft/verify cycles)">
              Verify steps
            </TableHead>
            <TableHead
              className="text-right"
              title="accepted draft tokens, without each step's bonus token"
            >
              Accepted draft tokens
            </TableHead>
            <TableHead
              className="text-right"
              title="accepted draft tokens + one bonus token per verify step"
            >
              Tokens produced
            </TableHead>
            <TableHead
              className="text-right"
              title="distinct prompt ids (a result may be a prompt group)"
            >
              Prompts
            </TableHead>
            {anyTokPerS && <TableHead className="text-right">Mean output tok/s</TableHead>}
          </TableRow>
        </TableHeader>
        <TableBody>
          {paged.rows.flat().map((r) => (
            <TableRow
              key={`${r.checkpointKey}\u0000${r.total ? "" : (r.category ?? NO_CATEGORY)}`}
              className={cn(r.total && "bg-muted/30")}
              data-checkpoint={r.checkpointKey}
              data-total={r.total ? "true" : undefined}
            >
              <TableCell className={cn(r.total ? "font-medium" : "text-muted-fg")}>
                {r.total ? checkpointName(r) : ""}
              </TableCell>
              <TableCell className={cn(r.total && "text-muted-fg")}>
                {r.total ? "all categories" : (r.category ?? NO_CATEGORY)}
              </TableCell>
              <TableCell
                className={cn("text-right", r.total && "font-semibold")}
                data-testid={r.total ? "checkpoint-tau" : undefined}
              >
                {formatTau(r.tau)}
              </TableCell>
              <TableCell className="text-right">{formatCount(r.verifySteps)}</TableCell>
              <TableCell className="text-right">{formatCount(r.acceptedTokens)}</TableCell>
              <TableCell className="text-right">{formatCount(r.tokensProduced)}</TableCell>
              <TableCell className="text-right">{formatCount(r.prompts)}</TableCell>
              {anyTokPerS && (
                <TableCell className="text-right">{formatTokPerS(r.meanOutputTokPerS)}</TableCell>
              )}
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Pager paged={paged} noun="checkpoints" />
    </>
  );
}
