/**
 * Cross-counter checks that flag data loss while a pipeline runs. Counter names follow the
 * protocol (`s3.uploaded`, `local.deleted`); values are run totals (see `aggregateWorkers`).
 */

import { formatCount } from "../format";

/** A violated invariant, with the counts that show it. */
export type UploadViolation = {
  code: "deleted_before_upload";
  message: string;
  deleted: number;
  uploaded: number;
};

/**
 * The counters {@link uploadInvariant} reads: a run's alert state can only change when a progress
 * frame carries one of them (ingest skips the check otherwise).
 */
export const UPLOAD_INVARIANT_COUNTERS: readonly string[] = ["local.deleted", "s3.uploaded"];

/** Violation when `local.deleted` > `s3.uploaded` (files deleted locally but never uploaded); null when it holds or either counter is absent/non-finite. */
export function uploadInvariant(counters: Record<string, number>): UploadViolation | null {
  const deleted = counters["local.deleted"];
  const uploaded = counters["s3.uploaded"];
  if (deleted === undefined || uploaded === undefined) return null;
  if (!Number.isFinite(deleted) || !Number.isFinite(uploaded)) return null;
  if (deleted <= uploaded) return null;
  const missing = deleted - uploaded;
  return {
    code: "deleted_before_upload",
    message: `${formatCount(missing)} ${missing === 1 ? "file" : "files"} deleted locally but never uploaded (local.deleted ${formatCount(deleted)} > s3.uploaded ${formatCount(uploaded)})`,
    deleted,
    uploaded,
  };
}
