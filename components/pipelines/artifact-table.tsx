"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";

import { CheckpointUri } from "@/components/checkpoints/checkpoint-uri";
import { RelativeTime } from "@/components/runs/relative-time";
import { CopyButton } from "@/components/ui/copy-button";
import { Pager, usePaged, type Paged } from "@/components/ui/pager";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { fetchArtifactPage } from "@/lib/api/fetchers/runs";
import { artifactPageQueryKey } from "@/lib/api/query-keys";
import { checkpointPath } from "@/lib/checkpoint-paths";
import { byteColumnFormat } from "@/lib/column-format";
import { formatCount, MISSING } from "@/lib/format";
import { clampPage, pageAfterResize, pageBounds, pageCount } from "@/lib/paging";
import type { ArtifactView } from "@/lib/view-models/pipeline";

import { formatBytes } from "./units";

/** Artifacts per page the table offers (the first is the default). */
const ARTIFACT_PAGE_SIZES = [20, 50, 100] as const;

/**
 * Pages over all `total` artifacts: pages inside the `loaded` newest come from them, later ones from
 * `GET /api/runs/:id/artifacts` (so the oldest of 364 are reachable, not only the 200 loaded).
 */
function useArtifactPages(
  runId: number,
  loaded: readonly ArtifactView[],
  total: number,
): Paged<ArtifactView> {
  const local = usePaged(loaded, ARTIFACT_PAGE_SIZES);
  const [wanted, setPage] = useState(0);
  const all = Math.max(total, loaded.length);
  const pageSize = local.pageSize;
  const page = clampPage(wanted, all, pageSize);
  const { from, to } = pageBounds(page, all, pageSize);
  const remote = to > loaded.length;
  const { data } = useQuery({
    queryKey: artifactPageQueryKey(runId, from, pageSize),
    queryFn: ({ signal }) => fetchArtifactPage(runId, from, pageSize, signal),
    enabled: remote,
    placeholderData: keepPreviousData,
  });
  return {
    rows: remote ? (data?.artifacts ?? []) : loaded.slice(from, to),
    page,
    pages: pageCount(all, pageSize),
    pageSize,
    pageSizes: ARTIFACT_PAGE_SIZES,
    total: all,
    setPage,
    setPageSize: (size) => {
      setPage(pageAfterResize(page, pageSize, size));
      local.setPageSize(size);
    },
  };
}

/** Checkpoints and uploaded objects, newest first, paged over all of them (20 a page by default): step, kind, URI (copyable; a checkpoint links to its lineage page), size, time. */
export function ArtifactTable({
  runId,
  artifacts,
  total,
}: {
  runId: number;
  artifacts: readonly ArtifactView[];
  total: number;
}) {
  const showStep = artifacts.some((a) => a.step !== null);
  const paged = useArtifactPages(runId, artifacts, total);
  // One byte unit for the column, named in the header (lib/column-format.ts).
  const size = byteColumnFormat(artifacts.map((a) => a.sizeBytes));
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
            <TableHead className="text-right">Size ({size.unit})</TableHead>
            <TableHead>Time</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {paged.rows.map((a) => (
            <TableRow key={a.id}>
              {showStep && (
                <TableCell className="text-right">
                  {a.step === null
                    ? MISSING
                    : typeof a.step === "number"
                      ? formatCount(a.step)
                      : a.step}
                </TableCell>
              )}
              <TableCell className="text-muted-fg">{a.kind}</TableCell>
              <TableCell>
                <span className="flex min-w-0 items-center gap-1">
                  {a.kind === "checkpoint" ? (
                    <Link
                      href={checkpointPath(a.uri)}
                      className="min-w-0 rounded-sm hover:underline [&_[data-uri-tail]]:text-link"
                      aria-label={a.uri}
                      title={`${a.uri}: who produced, scored and served this checkpoint`}
                    >
                      <CheckpointUri uri={a.uri} />
                    </Link>
                  ) : (
                    <CheckpointUri uri={a.uri} />
                  )}
                  <CopyButton text={a.uri} label="Copy URI" />
                </span>
              </TableCell>
              <TableCell className="text-right" title={formatBytes(a.sizeBytes)}>
                {size.format(a.sizeBytes)}
              </TableCell>
              <TableCell>
                <RelativeTime iso={a.ts} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Pager paged={paged} noun="artifacts" />
    </>
  );
}
