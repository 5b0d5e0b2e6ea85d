"use client";

import { useQuery } from "@tanstack/react-query";
import { Boxes } from "lucide-react";
import Link from "next/link";

import { CheckpointUri } from "@/components/checkpoints/checkpoint-uri";
import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { RelativeTime } from "@/components/runs/relative-time";
import { Card } from "@/components/ui/card";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { fetchCheckpoints } from "@/lib/api/fetchers/checkpoints";
import { CHECKPOINT_TOPICS, checkpointsQueryKey } from "@/lib/api/query-keys";
import { checkpointPath } from "@/lib/checkpoint-paths";
import { formatCount, formatNumber, MISSING } from "@/lib/format";
import { runPath } from "@/lib/paths";
import type { CheckpointListView } from "@/lib/view-models/lineage";

/** The list refreshes at most this often (ms) while pushes arrive: it aggregates over every eval result. */
const REFRESH_MS = 2000;

/** Step as a table shows it: grouped digits, or the decimal string beyond 2^53. */
function stepText(step: number | string | null): string {
  return step === null ? MISSING : typeof step === "number" ? formatCount(step) : step;
}

/** The live checkpoint list: URI, step, producing run, evals with best τ, benchmarks, first seen. */
export function CheckpointsView({
  initial,
  renderedAt,
}: {
  initial: CheckpointListView;
  renderedAt: number;
}) {
  const live = useLiveTopics(CHECKPOINT_TOPICS);
  useLiveInvalidate(CHECKPOINT_TOPICS, [checkpointsQueryKey(initial.limit)], {
    minIntervalMs: REFRESH_MS,
  });
  const { data, error } = useQuery({
    queryKey: checkpointsQueryKey(initial.limit),
    queryFn: ({ signal }) => fetchCheckpoints(initial.limit, signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const rows = data.checkpoints;
  return (
    <div className="grid gap-4">
      <div className="flex min-h-8 flex-wrap items-center gap-x-4 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">Checkpoints</h1>
        {rows.length > 0 && (
          <span className="text-sm text-muted-fg tabular-nums">
            {rows.length === data.limit
              ? `newest ${rows.length}`
              : `${rows.length} checkpoint${rows.length === 1 ? "" : "s"}`}
          </span>
        )}
      </div>
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh the list ({error.message}); showing the last data received.
        </p>
      )}
      {rows.length === 0 ? (
        <EmptyState />
      ) : (
        <Card>
          {/* Fixed columns need room: below 64rem the table scrolls sideways instead of giving the URI column no width. */}
          <Table className="min-w-[64rem] table-fixed">
            <colgroup>
              <col />
              <col className="w-28" />
              <col className="w-[28%]" />
              <col className="w-24" />
              <col className="w-24" />
              <col className="w-28" />
              <col className="w-28" />
            </colgroup>
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead>Checkpoint</TableHead>
                <TableHead className="text-right">Step</TableHead>
                <TableHead>Produced by</TableHead>
                <TableHead className="text-right">Eval runs</TableHead>
                <TableHead className="text-right">Best τ</TableHead>
                <TableHead className="text-right">Benchmarks</TableHead>
                <TableHead>First seen</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((c) => (
                <TableRow key={c.uri}>
                  <TableCell>
                    <Link
                      href={checkpointPath(c.uri)}
                      className="block rounded-sm hover:underline"
                      aria-label={`Checkpoint ${c.uri}`}
                    >
                      <CheckpointUri uri={c.uri} />
                    </Link>
                  </TableCell>
                  <TableCell className="text-right">{stepText(c.step)}</TableCell>
                  <TableCell className="truncate">
                    {c.producer ? (
                      <>
                        <Link
                          href={runPath(c.producer.runId)}
                          className="rounded-sm hover:underline"
                          title={c.producer.runName}
                        >
                          {c.producer.runName}
                        </Link>
                        {c.producerCount > 1 && (
                          <span className="ml-1 text-xs text-muted-fg">+{c.producerCount - 1}</span>
                        )}
                      </>
                    ) : (
                      <span className="text-muted-fg">{MISSING}</span>
                    )}
                  </TableCell>
                  <TableCell
                    className="text-right"
                    title={c.evalResults > 0 ? `${formatCount(c.evalResults)} results` : undefined}
                  >
                    {c.evalRuns === 0 ? (
                      <span className="text-muted-fg">0</span>
                    ) : (
                      formatCount(c.evalRuns)
                    )}
                  </TableCell>
                  <TableCell className="text-right font-semibold">
                    {c.bestTau === null ? (
                      <span className="font-normal text-muted-fg">{MISSING}</span>
                    ) : (
                      formatNumber(c.bestTau, 2)
                    )}
                  </TableCell>
                  <TableCell className="text-right">
                    {c.benchmarkRuns === 0 ? (
                      <span className="text-muted-fg">0</span>
                    ) : (
                      formatCount(c.benchmarkRuns)
                    )}
                  </TableCell>
                  <TableCell className="text-muted-fg">
                    <RelativeTime iso={c.firstSeenAt} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Card>
      )}
    </div>
  );
}

function EmptyState() {
  return (
    <div className="mx-auto mt-6 grid max-w-2xl justify-items-center gap-3 rounded-lg border border-dashed border-border bg-card px-6 py-10 text-center">
      <Boxes aria-hidden className="size-6 text-muted-fg" />
      <p className="text-sm">No checkpoints yet.</p>
      <p className="text-sm text-muted-fg">
        A training run reports one with a <code className="font-mono text-xs">run.artifact</code>{" "}
        frame of kind <code className="font-mono text-xs">checkpoint</code>; eval results name it in{" "}
        <code className="font-mono text-xs">checkpoint.uri</code>, and a benchmark run that serves
        it sets <code className="font-mono text-xs">config.checkpoint</code> to the same URI.
      </p>
      <pre className="max-w-full overflow-x-auto rounded-md border border-border bg-muted/60 px-3 py-2 text-left font-mono text-xs">
        {`{"v":1, "id":"ck-4000", "type":"run.artifact", "run":"<run key>",
 "kind":"checkpoint", "uri":"s3://drafters/dflash/step-4000", "step":4000}`}
      </pre>
    </div>
  );
}
