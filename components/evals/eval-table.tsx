import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatCount, formatTokPerS } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { EvalTableRow } from "@/lib/view-models/evals";
import { checkpointName, formatTau } from "./format";
import { NO_CATEGORY } from "./tau-category-bars";

/**
 * Checkpoint × category table: each checkpoint's total over all categories (bold), then one row per
 * category, with the raw counts every τ is computed from (τ = tokens produced / verify steps).
 */
export function EvalTable({ rows }: { rows: readonly EvalTableRow[] }) {
  const anyTokPerS = rows.some((r) => r.meanOutputTokPerS !== null);
  return (
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
          <TableHead className="text-right" title="accepted draft tokens, without each step's bonus token">
            Accepted draft tokens
          </TableHead>
          <TableHead className="text-right" title="accepted draft tokens + one bonus token per verify step">
            Tokens produced
          </TableHead>
          <TableHead className="text-right" title="distinct prompt ids (a result may be a prompt group)">
            Prompts
          </TableHead>
          {anyTokPerS && <TableHead className="text-right">Mean output tok/s</TableHead>}
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((r) => (
          <TableRow key={`${r.checkpointKey}\u0000${r.total ? "" : (r.category ?? NO_CATEGORY)}`} className={cn(r.total && "bg-muted/30")} data-checkpoint={r.checkpointKey} data-total={r.total ? "true" : undefined}>
            <TableCell className={cn(r.total ? "font-medium" : "text-muted-fg")}>{r.total ? checkpointName(r) : ""}</TableCell>
            <TableCell className={cn(r.total && "text-muted-fg")}>{r.total ? "all categories" : (r.category ?? NO_CATEGORY)}</TableCell>
            <TableCell className={cn("text-right", r.total && "font-semibold")} data-testid={r.total ? "checkpoint-tau" : undefined}>
              {formatTau(r.tau)}
            </TableCell>
            <TableCell className="text-right">{formatCount(r.verifySteps)}</TableCell>
            <TableCell className="text-right">{formatCount(r.acceptedTokens)}</TableCell>
            <TableCell className="text-right">{formatCount(r.tokensProduced)}</TableCell>
            <TableCell className="text-right">{formatCount(r.prompts)}</TableCell>
            {anyTokPerS && <TableCell className="text-right">{formatTokPerS(r.meanOutputTokPerS)}</TableCell>}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
