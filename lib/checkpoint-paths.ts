/**
 * URL builders of the checkpoint pages and reads. A URI holds slashes and colons
 * (`s3://bucket/key`), so it travels as a query parameter, never as a path segment.
 */

/** `/checkpoints`: every checkpoint, newest first. */
export function checkpointsPath(): string {
  return "/checkpoints";
}

/** `/checkpoints/view?uri=…`: one checkpoint's lineage. */
export function checkpointPath(uri: string): string {
  return `/checkpoints/view?uri=${encodeURIComponent(uri)}`;
}

/**
 * The checkpoint URI a config entry names, or null: the top-level `checkpoint` key, when it is a
 * non-empty string. (`model` / `modelPath` also match a benchmark run to a checkpoint, but they
 * usually hold a model name, so the config panel does not link them.)
 */
export function checkpointUriOfConfig(key: string, value: unknown): string | null {
  return key === "checkpoint" &&
    typeof value === "string" &&
    value.length > 0 &&
    value.length <= 2000
    ? value
    : null;
}
