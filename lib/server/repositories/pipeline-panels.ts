import {
  DEFAULT_S3_MAX_INFLIGHT,
  type CommandView,
  type S3PanelView,
} from "@/lib/view-models/pipeline";

/** Counter names shown in the S3 panel. */
export const S3_COUNTERS = {
  uploaded: "s3.uploaded",
  uploadedBytes: "s3.bytes",
  inflight: "s3.inflight",
  failed: "s3.failed",
  localDeleted: "local.deleted",
  diskFreeBytes: "disk.freeBytes",
} as const;

function configNumber(config: Record<string, unknown>, path: string): number | null {
  let v: unknown = config[path];
  if (v === undefined) {
    v = config;
    for (const part of path.split("."))
      v =
        v && typeof v === "object" && !Array.isArray(v)
          ? (v as Record<string, unknown>)[part]
          : undefined;
  }
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function configString(config: Record<string, unknown>, key: string): string | null {
  const v = config[key];
  if (typeof v === "string" && v.length > 0) return v;
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string"))
    return v.map(shellQuote).join(" ");
  return null;
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The S3 panel from run counter totals; null when no S3, local or disk counter was reported. */
export function s3Panel(
  counters: Record<string, number>,
  config: Record<string, unknown>,
): S3PanelView | null {
  if (
    !Object.keys(counters).some(
      (k) => k.startsWith("s3.") || k.startsWith("local.") || k.startsWith("disk."),
    )
  )
    return null;
  const limit = configNumber(config, "s3.maxInflight");
  return {
    uploaded: counters[S3_COUNTERS.uploaded] ?? null,
    uploadedBytes: counters[S3_COUNTERS.uploadedBytes] ?? null,
    inflight: counters[S3_COUNTERS.inflight] ?? null,
    inflightLimit: limit !== null && limit > 0 ? limit : DEFAULT_S3_MAX_INFLIGHT,
    failed: counters[S3_COUNTERS.failed] ?? null,
    localDeleted: counters[S3_COUNTERS.localDeleted] ?? null,
    diskFreeBytes: counters[S3_COUNTERS.diskFreeBytes] ?? null,
  };
}

/**
 * What `pitwall run` recorded (config `commandLine`, else `command` as a string or argv array;
 * `cwd`, `gitCommit`; exit code, output tail; see docs/worker-clients.md); null when nothing.
 */
export function commandView(
  config: Record<string, unknown>,
  exitCode: number | null,
  outputTail: string | null,
): CommandView | null {
  const command = configString(config, "commandLine") ?? configString(config, "command");
  const cwd = configString(config, "cwd");
  const gitCommit = configString(config, "gitCommit");
  if (command === null && cwd === null && gitCommit === null && exitCode === null && !outputTail)
    return null;
  return {
    command,
    cwd,
    gitCommit,
    exitCode,
    outputTail: outputTail ? outputTail.split("\n") : [],
  };
}
