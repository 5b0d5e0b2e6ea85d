import Papa from "papaparse";

import { stringifyJson } from "@/lib/protocol";
import type { ExportFormat } from "@/lib/view-models/export";

import { columnNames, csvRecord, jsonRecord, type ExportTable } from "./columns";

/**
 * Writers of the export files, streamed batch by batch so a run with millions of metric points
 * never sits in memory whole.
 *
 * CSV: RFC 4180 as papaparse 5.7 writes it (`Papa.unparse`): a header row, CRLF after every
 * record, fields quoted when they hold the delimiter, a quote or a line break. Numbers are written
 * as JavaScript's shortest round-trip text (`Number(cell)` gives back the stored double exactly),
 * NaN / ±Infinity as `NaN`, `Infinity`, `-Infinity` (what pandas, numpy and Python's float()
 * read), 64-bit integers in full, "not measured" as an empty cell, booleans as `true`/`false`,
 * times as ISO 8601 UTC. Text cells starting with `=`, `+`, `-`, `@`, tab or CR get a leading `'`
 * (papaparse's `escapeFormulae`) so a run name pushed by a worker cannot run as a spreadsheet
 * formula; numbers are never altered.
 *
 * JSON: `{"run": …, "data": …, "rows": [ … ]}` (a comparison: `"runs"` instead of `"run"`), one
 * row per line, written like every Pitwall read: non-finite numbers as the strings "NaN",
 * "Infinity", "-Infinity", integers beyond 2^53 as decimal strings, null for "not measured".
 */

const CSV_CONFIG: Papa.UnparseConfig = { newline: "\r\n", escapeFormulae: true };

/** The CSV header row of a table, CRLF-terminated. */
export function csvHeader<S>(table: ExportTable<S>): string {
  // The names as one data row: `unparse({fields, data: []})` would end in an extra CRLF (a blank record).
  return `${Papa.unparse([columnNames(table)], { ...CSV_CONFIG, header: false })}\r\n`;
}

/** CSV records of `rows` (no header), each CRLF-terminated; "" for no rows. */
export function csvRows<S>(table: ExportTable<S>, rows: readonly S[]): string {
  if (rows.length === 0) return "";
  return `${Papa.unparse({ fields: columnNames(table), data: rows.map((r) => csvRecord(table, r)) }, { ...CSV_CONFIG, header: false })}\r\n`;
}

/** Opening of a JSON export: `{…head fields…, "rows": [` (head is written with {@link stringifyJson}). */
export function jsonOpen(head: Record<string, unknown>): string {
  const text = stringifyJson({ ...head, rows: [] });
  // `…,"rows":[]}` → `…,"rows":[` : the rows follow, one per line.
  return text.slice(0, -2);
}

/** JSON rows of a batch, one per line; `first` says whether a row was written before (comma). */
export function jsonRows<S>(table: ExportTable<S>, rows: readonly S[], first: boolean): string {
  let out = "";
  rows.forEach((r, i) => {
    out += `${first && i === 0 ? "" : ","}\n${stringifyJson(jsonRecord(table, r))}`;
  });
  return out;
}

/** Closing of a JSON export. */
export const JSON_CLOSE = "\n]}\n";

/** What {@link exportStream} writes: the format, the table, the JSON head, and the rows in batches. */
export interface ExportSpec<S> {
  format: ExportFormat;
  table: ExportTable<S>;
  /** Fields of the JSON object before `rows` (ignored for CSV). */
  jsonHead: Record<string, unknown>;
  /** Source rows, batch by batch (read lazily: the next batch is fetched once the client took the last). */
  batches: AsyncIterable<readonly S[]>;
}

/**
 * The export file as a byte stream. Batches are pulled one at a time as the client reads, so
 * memory stays at about one batch. A failure while reading (database gone) errors the stream: the
 * client sees a cut download, never a complete-looking short file (the JSON would not close).
 */
export function exportStream<S>(spec: ExportSpec<S>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = spec.batches[Symbol.asyncIterator]();
  let wroteRow = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(
        encoder.encode(spec.format === "csv" ? csvHeader(spec.table) : jsonOpen(spec.jsonHead)),
      );
    },
    async pull(controller) {
      // Always enqueue something (or close) before returning: a pull that enqueues nothing is not
      // necessarily called again, which would stall the download on an empty batch.
      for (;;) {
        const next = await iterator.next();
        if (next.done) {
          if (spec.format === "json") controller.enqueue(encoder.encode(JSON_CLOSE));
          controller.close();
          return;
        }
        const rows = next.value;
        if (rows.length === 0) continue;
        const text =
          spec.format === "csv" ? csvRows(spec.table, rows) : jsonRows(spec.table, rows, !wroteRow);
        wroteRow = true;
        controller.enqueue(encoder.encode(text));
        return;
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** MIME types of the formats. */
const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8; header=present",
  json: "application/json; charset=utf-8",
};

/** The download response: the stream with its content type and `Content-Disposition: attachment; filename="…"`. */
export function exportResponse(
  body: ReadableStream<Uint8Array>,
  format: ExportFormat,
  filename: string,
): Response {
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": CONTENT_TYPES[format],
      "content-disposition": `attachment; filename="${filename.replace(/["\\\r\n]/g, "_")}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
