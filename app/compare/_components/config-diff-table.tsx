import { ConfigValue } from "@/components/runs/config-panel";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { MISSING } from "@/lib/format";
import type { configDiff } from "@/lib/run-config";
import { cn } from "@/lib/utils";

import type { RunEntry } from "./compare-model";

/** Config keys (`rows` of configDiff) down, compared runs across, each value as ConfigValue shows it. */
export function ConfigDiffTable({
  rows,
  entries,
}: {
  rows: ReturnType<typeof configDiff>;
  entries: RunEntry[];
}) {
  return (
    <Table className="table-fixed">
      <colgroup>
        <col className="w-56" />
        {entries.map((e) => (
          <col key={e.run.id} />
        ))}
      </colgroup>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead>Key</TableHead>
          {entries.map(({ run, color }) => (
            <TableHead key={run.id}>
              <span className="flex min-w-0 items-center gap-1.5">
                <span
                  aria-hidden
                  className="size-2 shrink-0 rounded-full"
                  style={{ background: color }}
                />
                <span className="truncate" title={run.name}>
                  {run.name}
                </span>
              </span>
            </TableHead>
          ))}
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((row) => (
          <TableRow key={row.key}>
            <TableCell
              className={cn(
                "h-auto truncate py-2 align-top text-muted-fg",
                row.label === row.key && "font-mono text-xs leading-5",
              )}
              title={row.key}
            >
              {row.label}
            </TableCell>
            {row.values.map((v, i) => (
              <TableCell key={i} className="h-auto py-2 align-top whitespace-normal">
                {v === undefined ? (
                  <span className="text-muted-fg">{MISSING}</span>
                ) : (
                  <ConfigValue value={v} />
                )}
              </TableCell>
            ))}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
