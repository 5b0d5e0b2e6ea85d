/**
 * The metric store (README.md here): the only code that names its tables ("MetricRow",
 * "MetricBlock", "MetricPending", "MetricTier", "MetricSeries", "MetricNonFinite", the view
 * "MetricPoint" and pitwall_metric_points). Everything else calls these functions.
 */
export { COPY_MIN_POINTS, upsertMetricPoints, type MetricFrame, type RaisedAlert } from "./append";
export { settle, settleRuns, startMetricFold, type MetricFoldLoop } from "./fold";
export { settleAllForRead, settleForRead } from "./settle-read";
export { getRunMetrics, DEFAULT_MAX_POINTS, type RunMetricsOptions } from "./read-series";
export { extendRunMetrics } from "./live-tail";
export { rebuildRunTiers } from "./tiers";
export { metricPointBatches, metricPointCountSql } from "./export";
export {
  latestFinitePoints,
  latestFiniteValueSql,
  metricKeysOfRuns,
  type LatestPointRow,
} from "./latest";
export { newestPoints, type NewestPointRow } from "./newest";
export {
  firstStepBetween,
  servingSeriesReads,
  type ServingPointRow,
  type ServingUpRow,
} from "./serving";
