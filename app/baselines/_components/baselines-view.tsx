"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowLeft, ExternalLink, Pencil, Plus, Trash2 } from "lucide-react";
import Link from "next/link";
import { Fragment, useState } from "react";

import { BaselineForm } from "@/components/evals/baseline-form";
import { draftSettingsLabel, formatTau } from "@/components/evals/format";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { RelativeTime } from "@/components/runs/relative-time";
import { Badge } from "@/components/ui/badge";
import { Button, buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { ApiError } from "@/lib/api/client";
import {
  createBaseline,
  deleteBaseline,
  fetchBaselines,
  updateBaseline,
  type BaselineBody,
} from "@/lib/api/fetchers/baselines";
import { allEvalOverviewsQueryKey, baselinesQueryKey } from "@/lib/api/query-keys";
import { formatNumber, MISSING } from "@/lib/format";
import { evalsPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { BaselineListView, BaselineView } from "@/lib/view-models/evals";

/** A baseline's value in its metric's unit: τ with two decimals, anything else with sensible precision. */
function formatValue(b: Pick<BaselineView, "metric">, v: number): string {
  return b.metric === "tau" ? formatTau(v) : formatNumber(v);
}

/** What to tell the person when the server refused a write. */
function refusal(err: unknown): string | null {
  if (!err) return null;
  if (err instanceof ApiError && err.code === "baseline_exists")
    return `${err.message}: choose another name, or edit that one.`;
  if (err instanceof ApiError && err.status === 403) return "Only approvers can change baselines.";
  return `Could not save: ${(err as Error).message}`;
}

/** The live baseline list; approvers also get the create form and per-row edit and delete. */
export function BaselinesView({
  initial,
  renderedAt,
  canEdit,
}: {
  initial: BaselineListView;
  renderedAt: number;
  canEdit: boolean;
}) {
  const live = useLiveTopics(["baselines"]);
  const queryClient = useQueryClient();
  const { data, error } = useQuery({
    queryKey: baselinesQueryKey,
    queryFn: ({ signal }) => fetchBaselines(signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const [creating, setCreating] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const [editing, setEditing] = useState<number | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<number | null>(null);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: baselinesQueryKey }),
      queryClient.invalidateQueries({ queryKey: allEvalOverviewsQueryKey }),
    ]);

  const create = useMutation({
    mutationFn: (body: BaselineBody) => createBaseline(body),
    onSuccess: () => {
      setCreating(false);
      setFormKey((k) => k + 1);
    },
    onSettled: refresh,
  });
  const update = useMutation({
    mutationFn: ({ id, body }: { id: number; body: BaselineBody }) => updateBaseline(id, body),
    onSuccess: () => setEditing(null),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: number) => deleteBaseline(id),
    onSuccess: () => setConfirmDelete(null),
    onSettled: refresh,
  });

  const baselines = data.baselines;
  const columns = canEdit ? 8 : 7;

  return (
    <div className="grid gap-4">
      <div className="flex min-h-8 flex-wrap items-center gap-x-4 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">Baselines</h1>
        <span className="text-sm text-muted-fg">
          reference figures drawn as labelled lines on eval charts
        </span>
        <div className="ml-auto flex items-center gap-2">
          <Link href={evalsPath()} className={buttonVariants({ variant: "outline", size: "sm" })}>
            <ArrowLeft aria-hidden />
            Evals
          </Link>
          {canEdit && !creating && (
            <Button size="sm" onClick={() => setCreating(true)}>
              <Plus aria-hidden />
              New baseline
            </Button>
          )}
        </div>
      </div>
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh the list ({error.message}); showing the last data received.
        </p>
      )}

      {canEdit && creating && (
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>New baseline</CardTitle>
            <CardDescription>
              e.g. the public DFlash drafter: τ 12.4 with DDTree-8 on coding prompts
            </CardDescription>
          </CardHeader>
          <CardContent>
            <BaselineForm
              key={formKey}
              busy={create.isPending}
              serverError={refusal(create.error)}
              onSubmit={(body) => create.mutate(body)}
              onCancel={() => {
                setCreating(false);
                create.reset();
              }}
              submitLabel="Create baseline"
            />
          </CardContent>
        </Card>
      )}

      <Card className="min-w-0">
        <CardHeader>
          <CardTitle>All baselines</CardTitle>
          <CardDescription className="tabular-nums">
            {baselines.length} baseline{baselines.length === 1 ? "" : "s"} · workers can also push
            them as <code className="font-mono">baseline.upsert</code>
            {!canEdit && " · approvers can add, edit and delete them here"}
          </CardDescription>
        </CardHeader>
        {remove.error && (
          <p
            role="alert"
            className="mx-4 mt-3 rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
          >
            Could not delete: {remove.error.message}
          </p>
        )}
        {baselines.length === 0 ? (
          <CardContent className="text-sm text-muted-fg">
            No baselines yet.{" "}
            {canEdit ? "Create one above, or push" : "Approvers create them here; workers push"}{" "}
            <code className="font-mono text-xs">{`{"type":"baseline.upsert","name":"DFlash DDTree-8","metric":"tau","value":12.4}`}</code>
            .
          </CardContent>
        ) : (
          <Table data-testid="baseline-table">
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead>Name</TableHead>
                <TableHead>Metric</TableHead>
                <TableHead className="text-right">Value</TableHead>
                <TableHead className="text-right">Tolerance ±</TableHead>
                <TableHead>Dataset</TableHead>
                <TableHead>Settings</TableHead>
                <TableHead>Updated</TableHead>
                {canEdit && <TableHead className="text-right">Actions</TableHead>}
              </TableRow>
            </TableHeader>
            <TableBody>
              {baselines.map((b) => (
                <Fragment key={b.id}>
                  <TableRow data-baseline={b.name}>
                    <TableCell className="max-w-80">
                      <span className="flex min-w-0 items-center gap-1.5">
                        <span className="truncate font-medium" title={b.name}>
                          {b.name}
                        </span>
                        {/* Rows stored before sources were limited to http(s) may hold other schemes: never link those. */}
                        {b.sourceUrl && /^https?:\/\//i.test(b.sourceUrl) && (
                          <a
                            href={b.sourceUrl}
                            target="_blank"
                            rel="noreferrer noopener"
                            className="text-muted-fg hover:text-foreground"
                            title={b.sourceUrl}
                          >
                            <ExternalLink aria-label="source" className="size-3.5" />
                          </a>
                        )}
                      </span>
                    </TableCell>
                    <TableCell>
                      <Badge tone="outline">{b.metric === "tau" ? "τ (tau)" : b.metric}</Badge>
                    </TableCell>
                    <TableCell className="text-right font-medium">
                      {formatValue(b, b.value)}
                    </TableCell>
                    <TableCell className="text-right">
                      {b.tolerance !== null ? formatValue(b, b.tolerance) : MISSING}
                    </TableCell>
                    <TableCell>{b.dataset ?? <span className="text-muted-fg">any</span>}</TableCell>
                    <TableCell
                      className="max-w-64 truncate text-muted-fg"
                      title={draftSettingsLabel(b.settings)}
                    >
                      {Object.keys(b.settings).length > 0
                        ? draftSettingsLabel(b.settings)
                        : MISSING}
                    </TableCell>
                    <TableCell className="text-muted-fg">
                      <RelativeTime iso={b.updatedAt} />
                    </TableCell>
                    {canEdit && (
                      <TableCell className="text-right">
                        {confirmDelete === b.id ? (
                          <span className="inline-flex items-center gap-1">
                            <span className="text-xs text-muted-fg">Delete?</span>
                            <Button
                              size="sm"
                              variant="outline"
                              className="text-failed hover:bg-failed-bg"
                              disabled={remove.isPending}
                              onClick={() => remove.mutate(b.id)}
                            >
                              Delete
                            </Button>
                            <Button
                              size="sm"
                              variant="ghost"
                              onClick={() => setConfirmDelete(null)}
                            >
                              Keep
                            </Button>
                          </span>
                        ) : (
                          <span className="inline-flex items-center gap-1">
                            <Button
                              size="icon"
                              variant="ghost"
                              aria-label={`Edit ${b.name}`}
                              title="Edit"
                              onClick={() => {
                                update.reset();
                                setEditing(editing === b.id ? null : b.id);
                              }}
                            >
                              <Pencil />
                            </Button>
                            <Button
                              size="icon"
                              variant="ghost"
                              aria-label={`Delete ${b.name}`}
                              title="Delete"
                              className="text-failed"
                              onClick={() => setConfirmDelete(b.id)}
                            >
                              <Trash2 />
                            </Button>
                          </span>
                        )}
                      </TableCell>
                    )}
                  </TableRow>
                  {canEdit && editing === b.id && (
                    <TableRow className={cn("bg-muted/30 hover:bg-muted/30")}>
                      <TableCell colSpan={columns} className="py-3 whitespace-normal">
                        <BaselineForm
                          initial={b}
                          busy={update.isPending}
                          serverError={refusal(update.error)}
                          onSubmit={(body) => update.mutate({ id: b.id, body })}
                          onCancel={() => setEditing(null)}
                          submitLabel="Save changes"
                        />
                      </TableCell>
                    </TableRow>
                  )}
                </Fragment>
              ))}
            </TableBody>
          </Table>
        )}
      </Card>
    </div>
  );
}
