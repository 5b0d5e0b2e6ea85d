"use client";

import { useQuery } from "@tanstack/react-query";
import { ChevronLeft } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";

import { CheckpointUri } from "@/components/checkpoints/checkpoint-uri";
import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { formatBytes } from "@/components/pipelines/units";
import { RelativeTime } from "@/components/runs/relative-time";
import { StatusBadge } from "@/components/runs/status-badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { MetaItem } from "@/components/ui/meta-item";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { fetchCheckpointLineage } from "@/lib/api/fetchers/checkpoints";
import { CHECKPOINT_TOPICS, checkpointLineageQueryKey } from "@/lib/api/query-keys";
import { checkpointsPath } from "@/lib/checkpoint-paths";
import { byteColumnFormat } from "@/lib/column-format";
import { formatCount, formatNumber, formatTokPerS, MISSING } from "@/lib/format";
import { runPath } from "@/lib/paths";
import { engineLabel } from "@/lib/run-config";
import type { CheckpointLineageView, LineageRun } from "@/lib/view-models/lineage";

/** Lineage refreshes at most this often (ms) while pushes arrive: every push to any run changes `runs`. */
const REFRESH_MS = 2000;

function stepText(step: number | string | null): string {
  return step === null ? MISSING : typeof step === "number" ? formatCount(step) : step;
}

function RunLink({ run }: { run: LineageRun }) {
  return (
    <Link
      href={runPath(run.id)}
      className="block truncate rounded-sm font-medium hover:underline"
      title={run.name}
    >
      {run.name}
    </Link>
  );
}

/** The first cells of every lineage table row: the run (linked), its state and, unless left out, its host. */
function RunCells({
  run,
  nameWidth = "max-w-96",
  host = true,
}: {
  run: LineageRun;
  nameWidth?: string;
  host?: boolean;
}) {
  return (
    <>
      <TableCell className={nameWidth}>
        <RunLink run={run} />
      </TableCell>
      <TableCell>
        <StatusBadge state={run.state} />
      </TableCell>
      {host && <TableCell>{run.host}</TableCell>}
    </>
  );
}

function Section({
  title,
  count,
  description,
  empty,
  children,
}: {
  title: string;
  count: number;
  description: string;
  empty: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>
          {title} <span className="font-normal text-muted-fg tabular-nums">· {count}</span>
        </CardTitle>
        <CardDescription className="ml-auto">{description}</CardDescription>
      </CardHeader>
      {count === 0 ? (
        <CardContent className="text-sm text-muted-fg">{empty}</CardContent>
      ) : (
        children
      )}
    </Card>
  );
}

function DraftSettings({ draft }: { draft: Record<string, string | number | boolean | null> }) {
  const entries = Object.entries(draft);
  if (entries.length === 0) return <span className="text-muted-fg">{MISSING}</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {entries.map(([k, v]) => (
        <code key={k} className="rounded bg-muted px-1 py-px font-mono text-xs">
          {k}={String(v)}
        </code>
      ))}
    </span>
  );
}

const code = (text: string) => <code className="font-mono text-xs">{text}</code>;

/** One checkpoint: the training runs that produced it, the eval runs that scored it (τ), the benchmark runs that served it; live. */
export function CheckpointView({
  initial,
  renderedAt,
}: {
  initial: CheckpointLineageView;
  renderedAt: number;
}) {
  const live = useLiveTopics(CHECKPOINT_TOPICS);
  useLiveInvalidate(CHECKPOINT_TOPICS, [checkpointLineageQueryKey(initial.uri)], {
    minIntervalMs: REFRESH_MS,
  });
  const { data: view, error } = useQuery({
    queryKey: checkpointLineageQueryKey(initial.uri),
    queryFn: ({ signal }) => fetchCheckpointLineage(initial.uri, signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const producer = view.producedBy[0];
  const best = view.scoredBy[0];

  return (
    <div className="grid gap-4">
      <div className="grid gap-2">
        <Link
          href={checkpointsPath()}
          className="flex w-fit items-center gap-0.5 rounded-sm text-xs text-muted-fg hover:text-foreground"
        >
          <ChevronLeft aria-hidden className="size-3.5" />
          Checkpoints
        </Link>
        <div className="flex min-w-0 items-center gap-1">
          <h1 className="min-w-0 truncate text-lg font-semibold tracking-tight">
            <span className="sr-only">Checkpoint </span>
            <CheckpointUri uri={view.uri} className="text-base" />
          </h1>
          <CopyButton text={view.uri} label="Copy URI" />
        </div>
        <dl className="flex flex-wrap items-center gap-x-5 gap-y-1 text-[13px] text-muted-fg tabular-nums">
          <MetaItem label="Step">
            <span className="text-foreground">{stepText(view.step)}</span>
          </MetaItem>
          {view.label && (
            <MetaItem label="Label">
              <span className="text-foreground">{view.label}</span>
            </MetaItem>
          )}
          <MetaItem label="Produced by">
            {producer ? (
              <Link
                href={runPath(producer.run.id)}
                className="rounded-sm text-foreground hover:underline"
              >
                {producer.run.name}
              </Link>
            ) : (
              <span>unknown</span>
            )}
          </MetaItem>
          <MetaItem label="Best τ">
            <span className="font-semibold text-foreground">
              {best ? formatNumber(best.tau, 2) : MISSING}
            </span>
            {best && <span className="ml-1">({best.run.name})</span>}
          </MetaItem>
        </dl>
      </div>
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh this checkpoint ({error.message}); showing the last data received.
        </p>
      )}

      <Section
        title="Produced by"
        count={view.producedBy.length}
        description="runs that reported this URI as a checkpoint artifact"
        empty={
          <>
            No run reported this checkpoint. A training run reports it with{" "}
            {code('run.artifact {"kind": "checkpoint", "uri": …}')}.
          </>
        }
      >
        <Table>
          <TableHeader>
            <TableRow className="hover:bg-transparent">
              <TableHead>Run</TableHead>
              <TableHead>State</TableHead>
              <TableHead>Host</TableHead>
              <TableHead className="text-right">Step</TableHead>
              <TableHead className="text-right">
                Size ({byteColumnFormat(view.producedBy.map((p) => p.sizeBytes)).unit})
              </TableHead>
              <TableHead>Reported</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {view.producedBy.map((p) => (
              <TableRow key={p.run.id}>
                <RunCells run={p.run} />
                <TableCell className="text-right">{stepText(p.step)}</TableCell>
                <TableCell className="text-right" title={formatBytes(p.sizeBytes)}>
                  {byteColumnFormat(view.producedBy.map((q) => q.sizeBytes)).format(p.sizeBytes)}
                </TableCell>
                <TableCell className="text-muted-fg">
                  <RelativeTime iso={p.ts} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Section>

      <Section
        title="Scored by"
        count={view.scoredBy.length}
        description="τ = Σ tokens produced / Σ verify steps, per eval run and draft settings"
        empty={
          <>
            No eval result names this checkpoint. Eval results name it with{" "}
            {code('"checkpoint": {"uri": …}')} in {code("run.eval")}.
          </>
        }
      >
        <Table>
          <TableHeader>
            <TableRow className="hover:bg-transparent">
              <TableHead>Eval run</TableHead>
              <TableHead>State</TableHead>
              <TableHead>Draft settings</TableHead>
              <TableHead>Datasets</TableHead>
              <TableHead className="text-right">Results</TableHead>
              <TableHead className="text-right">Verify steps</TableHead>
              <TableHead className="text-right">τ</TableHead>
              <TableHead>Last result</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {view.scoredBy.map((e, i) => (
              <TableRow key={`${e.run.id}:${JSON.stringify(e.draft)}:${i}`}>
                <RunCells run={e.run} nameWidth="max-w-80" host={false} />
                <TableCell className="h-auto py-1.5 whitespace-normal">
                  <DraftSettings draft={e.draft} />
                </TableCell>
                <TableCell className="max-w-48 truncate" title={e.datasets.join(", ")}>
                  {e.datasets.length === 0 ? (
                    <span className="text-muted-fg">{MISSING}</span>
                  ) : (
                    e.datasets.join(", ")
                  )}
                </TableCell>
                <TableCell className="text-right">{formatCount(e.results)}</TableCell>
                <TableCell className="text-right">{formatCount(e.verifySteps)}</TableCell>
                <TableCell
                  className="text-right font-semibold"
                  title={`${formatCount(e.acceptedTokens + e.verifySteps)} tokens / ${formatCount(e.verifySteps)} steps`}
                >
                  {formatNumber(e.tau, 2)}
                </TableCell>
                <TableCell className="text-muted-fg">
                  <RelativeTime iso={e.lastTs} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Section>

      <Section
        title="Served by"
        count={view.servedBy.length}
        description="benchmark runs whose config names this URI"
        empty={
          <>
            No benchmark run served this checkpoint. A benchmark run links to it by setting{" "}
            {code('"checkpoint"')} in its {code("run.start")} config to this URI.
          </>
        }
      >
        <Table>
          <TableHeader>
            <TableRow className="hover:bg-transparent">
              <TableHead>Benchmark run</TableHead>
              <TableHead>State</TableHead>
              <TableHead>Host</TableHead>
              <TableHead>Engine</TableHead>
              <TableHead className="text-right">Points</TableHead>
              <TableHead className="text-right">Peak output</TableHead>
              <TableHead>Config key</TableHead>
              <TableHead>Started</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {view.servedBy.map((b) => (
              <TableRow key={b.run.id}>
                <RunCells run={b.run} />
                <TableCell>{engineLabel(b.engine, b.engineVersion) ?? MISSING}</TableCell>
                <TableCell className="text-right">{formatCount(b.pointCount)}</TableCell>
                <TableCell className="text-right font-semibold">
                  {formatTokPerS(b.peakOutputTokPerS)}
                </TableCell>
                <TableCell>
                  <code className="font-mono text-xs text-muted-fg">{b.matchedBy}</code>
                </TableCell>
                <TableCell className="text-muted-fg">
                  <RelativeTime iso={b.run.startedAt} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Section>
    </div>
  );
}
