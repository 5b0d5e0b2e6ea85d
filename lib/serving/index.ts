/**
 * Serving telemetry math: Prometheus exposition parsing, DP-rank aggregation, reset-aware counter
 * and histogram deltas, window quantiles. Pure, no database, no network (see docs/protocol.md,
 * "Serving runs").
 */
export * from "./exposition";
export * from "./quantile";
export * from "./series";
export * from "./engines";
export * from "./derive";
export * from "./dcgm";
export * from "./stall";
