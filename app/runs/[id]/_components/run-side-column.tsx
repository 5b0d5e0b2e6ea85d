"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";

import { checkpointName } from "@/components/evals/format";
import { ConfigPanel } from "@/components/runs/config-panel";
import { TagList } from "@/components/runs/tag-list";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { fetchRunEvals } from "@/lib/api/fetchers/evals";
import { runEvalsQueryKey } from "@/lib/api/query-keys";
import { checkpointPath } from "@/lib/checkpoint-paths";
import { formatCount } from "@/lib/format";
import { runPath } from "@/lib/paths";
import type { RunDetail } from "@/lib/view-models";
import type { ArtifactView } from "@/lib/view-models/pipeline";

/** Checkpoint links listed per group in the lineage card before "+N more". */
const LINEAGE_LINKS = 3;

/**
 * The run page's side column (a right column from 1280 px, after the charts below that): tags and
 * notes, the configuration, and the lineage the page knows of (checkpoints the run saved, eval
 * runs that scored them, checkpoints an eval run scored), each linking to its checkpoint page.
 */
export function RunSideColumn({
  run,
  config,
  artifacts,
}: {
  run: RunDetail;
  config: Record<string, unknown>;
  artifacts: readonly ArtifactView[];
}) {
  return (
    <aside
      aria-label="Run details"
      className="grid min-w-0 content-start gap-4"
      data-testid="run-side-column"
    >
      {(run.tags.length > 0 || run.notes) && (
        <Card>
          <CardHeader>
            <CardTitle>Tags and notes</CardTitle>
          </CardHeader>
          <CardContent className="grid gap-2">
            {run.tags.length > 0 && <TagList tags={run.tags} max={24} />}
            {run.notes && (
              <p className="text-sm break-words whitespace-pre-wrap text-muted-fg">{run.notes}</p>
            )}
          </CardContent>
        </Card>
      )}
      <Card>
        <CardHeader>
          <CardTitle>Configuration</CardTitle>
        </CardHeader>
        <CardContent>
          <ConfigPanel
            config={config}
            className="grid-cols-[minmax(5rem,7.5rem)_minmax(0,1fr)] gap-x-3"
          />
        </CardContent>
      </Card>
      <LineageCard runId={run.id} artifacts={artifacts} />
    </aside>
  );
}

function LineageCard({ runId, artifacts }: { runId: number; artifacts: readonly ArtifactView[] }) {
  // The same query the eval sections run (shared cache): scored-by runs and scored checkpoints.
  const { data: evals } = useQuery({
    queryKey: runEvalsQueryKey(runId, null),
    queryFn: ({ signal }) => fetchRunEvals(runId, null, signal),
  });
  const saved = artifacts.filter((a) => a.kind === "checkpoint");
  const scored = (evals?.checkpoints ?? []).filter(
    (c) => c.uri !== null && !saved.some((a) => a.uri === c.uri),
  );
  const scoredBy = evals?.scoredBy ?? [];
  if (saved.length === 0 && scored.length === 0 && scoredBy.length === 0) return null;
  return (
    <Card data-testid="run-lineage">
      <CardHeader>
        <CardTitle>Lineage</CardTitle>
        <CardDescription className="ml-auto">who made and scored what</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3 text-[13px]">
        {saved.length > 0 && (
          <LinkGroup
            title={`Saved ${formatCount(saved.length)} checkpoint${saved.length === 1 ? "" : "s"}`}
            more={saved.length - LINEAGE_LINKS}
          >
            {saved.slice(0, LINEAGE_LINKS).map((a) => (
              <CheckpointLink
                key={a.id}
                uri={a.uri}
                name={checkpointName({
                  step: a.step === null ? null : String(a.step),
                  label: null,
                  uri: a.uri,
                })}
              />
            ))}
          </LinkGroup>
        )}
        {scoredBy.length > 0 && (
          <LinkGroup title="Scored by" more={0}>
            {scoredBy.map((r) => (
              <Link
                key={r.id}
                href={runPath(r.id)}
                className="truncate rounded-sm text-link hover:underline max-md:break-words max-md:whitespace-normal"
                title={r.name}
              >
                {r.name}
              </Link>
            ))}
          </LinkGroup>
        )}
        {scored.length > 0 && (
          <LinkGroup
            title={`Scored ${formatCount(scored.length)} checkpoint${scored.length === 1 ? "" : "s"} of other runs`}
            more={scored.length - LINEAGE_LINKS}
          >
            {[...scored]
              .reverse()
              .slice(0, LINEAGE_LINKS)
              .map((c) => (
                <CheckpointLink key={c.key} uri={c.uri!} name={checkpointName(c)} />
              ))}
          </LinkGroup>
        )}
      </CardContent>
    </Card>
  );
}

function LinkGroup({
  title,
  more,
  children,
}: {
  title: string;
  more: number;
  children: React.ReactNode;
}) {
  return (
    <div className="grid min-w-0 gap-1">
      <div className="text-xs text-muted-fg">{title}</div>
      {children}
      {more > 0 && (
        <div className="text-xs text-muted-fg">+{formatCount(more)} more (see the tables)</div>
      )}
    </div>
  );
}

function CheckpointLink({ uri, name }: { uri: string; name: string }) {
  return (
    <Link
      href={checkpointPath(uri)}
      className="flex min-w-0 items-baseline gap-2 rounded-sm hover:underline"
      title={`${uri}: who produced, scored and served this checkpoint`}
    >
      <span className="shrink-0 text-link">{name}</span>
      <span className="truncate font-mono text-xs text-muted-fg">{uri}</span>
    </Link>
  );
}
