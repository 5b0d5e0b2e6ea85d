"use client";

import Link from "next/link";
import { CheckpointUri } from "@/components/checkpoints/checkpoint-uri";
import { RelativeTime } from "@/components/runs/relative-time";
import { CopyButton } from "@/components/ui/copy-button";
import { Pager, usePaged } from "@/components/ui/pager";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { checkpointPath } from "@/lib/checkpoint-paths";
import { MISSING, formatCount } from "@/lib/format";
import type { ArtifactView } from "@/lib/view-models/pipeline";
import { formatBytes } from "./units";

/** Artifacts per page the table offers (the first is the default). */
const ARTIFACT_PAGE_SIZES = [20, 50, 100] as const;

/** Checkpoints and uploaded objects, newest first, paged (20 a page by default): step, kind, URI (copyable; a checkpoint links to its lineage page), size, time. */
export function ArtifactTable({ artifacts, total }: { artifacts: readonly ArtifactView[]; total: number }) {
  const showStep = artifacts.some((a) => a.step !== null);
  const paged = usePaged(artifacts, ARTIFACT_PAGE_SIZES);
  return (
    <>
      {/* Fixed columns: a long URI is cut (with a tooltip and a copy button) instead of pushing Size and Time out of a half-width card. */}
      <Table label="Artifacts" className="min-w-[36rem] table-fixed">
        <colgroup>
          {showStep && <col className="w-20" />}
          <col className="w-24" />
          <col />
          <col className="w-24" />
          <col className="w-28" />
        </colgroup>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            {showStep && <TableHead className="text-right">Step</TableHead>}
            <TableHead>Kind</TableHead>
            <TableHead>URI</TableHead>
            <TableHead className="text-right">Size</TableHead>
            <TableHead>Time</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {paged.rows.map((a) => (
            <TableRow key={a.id}>
              {showStep && <TableCell className="text-right">{a.step === null ? MISSING : typeof a.step === "number" ? formatCount(a.step) : a.step}</TableCell>}
              <TableCell className="text-muted-fg">{a.kind}</TableCell>
              <TableCell>
                <span className="flex min-w-0 items-center gap-1">
                  {a.kind === "checkpoint" ? (
                    <Link href={checkpointPath(a.uri)} className="min-w-0 rounded-sm hover:underline [&_[data-uri-tail]]:text-link" aria-label={a.uri} title={`${a.uri}: who produced, scored and served this checkpoint`}>
                      <CheckpointUri uri={a.uri} />
                    </Link>
                  ) : (
                    <CheckpointUri uri={a.uri} />
                  )}
                  <CopyButton text={a.uri} label="Copy URI" />
                </span>
              </TableCell>
              <TableCell className="text-right">{formatBytes(a.sizeBytes)}</TableCell>
              <TableCell>
                <RelativeTime iso={a.ts} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Pager paged={paged} noun="artifacts" />
      {total > artifacts.length && <p className="px-4 py-2 text-xs text-muted-fg tabular-nums">Newest {formatCount(artifacts.length)} of {formatCount(total)} shown.</p>}
    </>
  );
}
