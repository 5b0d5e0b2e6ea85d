import { OctagonAlert } from "lucide-react";
import type { ReactNode } from "react";

import { Meter } from "@/components/hosts/gpu-bars";
import { formatCount, MISSING } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { S3PanelView } from "@/lib/view-models/pipeline";

import { formatBytes } from "./units";

function Tile({
  label,
  children,
  note,
  tone,
}: {
  label: string;
  children: ReactNode;
  note?: ReactNode;
  tone?: "failed" | "stale";
}) {
  return (
    <div
      className={cn(
        "min-w-0 rounded-md border border-border px-3 py-2",
        tone === "failed" && "border-failed/50 bg-failed-bg/50",
        tone === "stale" && "border-stale/50 bg-stale-bg/50",
      )}
    >
      <div className="text-xs text-muted-fg">{label}</div>
      <div
        className={cn(
          "mt-0.5 text-xl font-semibold tracking-tight tabular-nums",
          tone === "failed" && "text-failed",
          tone === "stale" && "text-stale",
        )}
      >
        {children}
      </div>
      {note && <div className="mt-0.5 truncate text-xs text-muted-fg tabular-nums">{note}</div>}
    </div>
  );
}

/**
 * S3 and local-disk figures of a pipeline: uploaded count and bytes, uploads in flight against the
 * limit, failures, local deletes and free disk. The "deleted locally but never uploaded" alert is
 * shown on top, in red, while it is active.
 */
export function S3Panel({
  s3,
  deletedBeforeUpload,
}: {
  s3: S3PanelView;
  deletedBeforeUpload: boolean;
}) {
  const inflightPct = s3.inflight !== null ? (s3.inflight / s3.inflightLimit) * 100 : null;
  const missing =
    s3.localDeleted !== null && s3.uploaded !== null ? s3.localDeleted - s3.uploaded : null;
  return (
    <div className="grid gap-3">
      {deletedBeforeUpload && (
        <div
          role="alert"
          className="flex items-start gap-2.5 rounded-md border border-failed/60 bg-failed-bg px-3 py-2.5 text-failed"
        >
          <OctagonAlert aria-hidden className="mt-0.5 size-5 shrink-0" />
          <div className="text-sm">
            <div className="font-semibold">Deleted locally but never uploaded</div>
            <div className="tabular-nums">
              {missing !== null && missing > 0
                ? `${formatCount(missing)} file${missing === 1 ? "" : "s"}: `
                : ""}
              local.deleted {formatCount(s3.localDeleted)} &gt; s3.uploaded{" "}
              {formatCount(s3.uploaded)}. Those files are lost unless they can be regenerated.
            </div>
          </div>
        </div>
      )}
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-3">
        <Tile
          label="Uploaded"
          note={s3.uploadedBytes !== null ? formatBytes(s3.uploadedBytes) : undefined}
        >
          {formatCount(s3.uploaded)}
        </Tile>
        <Tile
          label="In flight"
          tone={inflightPct !== null && inflightPct > 100 ? "stale" : undefined}
          note={
            <span className="flex items-center gap-2">
              <Meter
                pct={inflightPct}
                className="w-16"
                tone={inflightPct !== null && inflightPct > 100 ? "stale" : "running"}
              />
              limit {formatCount(s3.inflightLimit)}
            </span>
          }
        >
          {s3.inflight === null
            ? MISSING
            : `${formatCount(s3.inflight)} / ${formatCount(s3.inflightLimit)}`}
        </Tile>
        <Tile
          label="Failed uploads"
          tone={s3.failed !== null && s3.failed > 0 ? "failed" : undefined}
        >
          {formatCount(s3.failed)}
        </Tile>
        <Tile
          label="Deleted locally"
          tone={deletedBeforeUpload ? "failed" : undefined}
          note="after upload"
        >
          {formatCount(s3.localDeleted)}
        </Tile>
        <Tile label="Disk free" note="min over workers">
          {formatBytes(s3.diskFreeBytes)}
        </Tile>
      </div>
    </div>
  );
}
