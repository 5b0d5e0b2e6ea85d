"use client";

import Link from "next/link";
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
      <Table label="Artifacts">
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
              <TableCell className="max-w-[36rem]">
                <span className="flex min-w-0 items-center gap-1">
                  {a.kind === "checkpoint" ? (
                    <Link href={checkpointPath(a.uri)} className="truncate rounded-sm font-mono text-xs text-link hover:underline" title={`${a.uri}: who produced, scored and served this checkpoint`}>
                      {a.uri}
                    </Link>
                  ) : (
                    <span className="truncate font-mono text-xs" title={a.uri}>
                      {a.uri}
                    </span>
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
