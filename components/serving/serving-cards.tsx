"use client";

import { useQuery } from "@tanstack/react-query";

import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { fetchHostServing } from "@/lib/api/fetchers/hosts";
import { fetchRunServing } from "@/lib/api/fetchers/runs";
import { hostServingQueryKey, runServingQueryKey } from "@/lib/api/query-keys";
import type { RunServingView, ServingWindowView } from "@/lib/view-models/serving";

import { ServingRunPanel } from "./serving-panel";

/** Serving reads refetch at most this often (ms) while scrapes arrive. */
const SERVING_REFRESH_MS = 2000;

/** A serving read seeded by the page's render, refetched (throttled) on the `runs` topic, polled only while the socket is down. */
function useServingQuery<T extends object>(
  queryKey: readonly unknown[],
  queryFn: (signal: AbortSignal) => Promise<T>,
  initial: T,
  renderedAt: number,
): T {
  const live = useLiveTopics(["runs"]);
  useLiveInvalidate(["runs"], [queryKey], { minIntervalMs: SERVING_REFRESH_MS });
  const { data } = useQuery({
    queryKey,
    queryFn: ({ signal }) => queryFn(signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  return data;
}

/** The host page's "Serving" card: every engine scraped on this host in the window (`rangeSearch`: its URL parameters, "" = last hour). */
export function HostServingCard({
  hostName,
  initial,
  renderedAt,
  rangeSearch = "",
  rangeWords = "last hour",
}: {
  hostName: string;
  initial: ServingWindowView;
  renderedAt: number;
  rangeSearch?: string;
  rangeWords?: string;
}) {
  const data = useServingQuery(
    hostServingQueryKey(hostName, rangeSearch),
    (signal) => fetchHostServing(hostName, signal, rangeSearch),
    initial,
    renderedAt,
  );
  return (
    <Card className="min-w-0" data-testid="serving-card">
      <CardHeader>
        <CardTitle>Serving</CardTitle>
        <CardDescription className="ml-auto">engine /metrics, {rangeWords}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        {data.runs.length === 0 ? (
          <p className="text-sm text-muted-fg">
            No serving engine scraped on this host in the {rangeWords}. Start one with{" "}
            <code className="font-mono text-foreground">
              npx pitwall scrape http://127.0.0.1:30000/metrics
            </code>{" "}
            (SGLang with --enable-metrics, or vLLM).
          </p>
        ) : (
          data.runs.map((r) => (
            <ServingRunPanel key={r.runId} run={r} fromMs={data.fromMs} toMs={data.toMs} />
          ))
        )}
      </CardContent>
    </Card>
  );
}

/**
 * A run page's "Server telemetry" card: on a benchmark, what the engine on the same host did during
 * the run, with the sweep's levels marked; on a serving run, its own series. Renders nothing when
 * no engine was scraped then.
 */
export function RunServingCard({
  runId,
  initial,
  renderedAt,
  ownRun = false,
  rangeSearch = "",
}: {
  runId: number;
  initial: RunServingView;
  renderedAt: number;
  ownRun?: boolean;
  rangeSearch?: string;
}) {
  const data = useServingQuery(
    runServingQueryKey(runId, rangeSearch),
    (signal) => fetchRunServing(runId, signal, rangeSearch),
    initial,
    renderedAt,
  );
  if (data.runs.length === 0) return null;
  return (
    <Card className="min-w-0" data-testid="serving-card">
      <CardHeader>
        <CardTitle>{ownRun ? "Serving telemetry" : "Server telemetry during this run"}</CardTitle>
        <CardDescription className="ml-auto">
          {ownRun ? "engine /metrics" : "scraped engine /metrics on the same host"}
          {data.levels.length > 0 && " · dashed lines: start of each sweep level"}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        {data.runs.map((r) => (
          <ServingRunPanel
            key={r.runId}
            run={r}
            fromMs={data.fromMs}
            toMs={data.toMs}
            levels={data.levels}
            clientAcceptLength={data.clientAcceptLength}
            linkName={!ownRun}
          />
        ))}
      </CardContent>
    </Card>
  );
}
