import { z } from "zod";

import { parseIdList } from "@/lib/paths";
import {
  EXPORT_DATA,
  EXPORT_FORMATS,
  type ExportData,
  type ExportFormat,
} from "@/lib/view-models/export";

import { defineRoute } from "./contract";

/** A parsed export query, or the 400 to answer with (`code` names the bad parameter). */
export type ExportQuery =
  | { ok: true; data: ExportData; format: ExportFormat }
  | { ok: false; code: "invalid_export_data" | "invalid_export_format"; message: string };

/**
 * Reads `data` and `format` of an export URL. `format` defaults to `csv`; `data` defaults to
 * `opts.defaultData` (required when there is none) and must be one of `opts.allowed` (default:
 * every kind). A parameter given twice is an error, not a silent pick.
 */
export function parseExportQuery(
  params: URLSearchParams,
  opts: { defaultData?: ExportData; allowed?: readonly ExportData[] } = {},
): ExportQuery {
  const allowed = opts.allowed ?? EXPORT_DATA;
  const dataValues = params.getAll("data");
  const data =
    dataValues.length === 0
      ? opts.defaultData
      : dataValues.length === 1
        ? dataValues[0]
        : undefined;
  if (data === undefined || !(allowed as readonly string[]).includes(data)) {
    const got =
      dataValues.length === 0
        ? "none"
        : dataValues.map((v) => JSON.stringify(v.slice(0, 40))).join(", ");
    return {
      ok: false,
      code: "invalid_export_data",
      message: `data must be one of ${allowed.join(", ")} (got ${got})`,
    };
  }
  const formatValues = params.getAll("format");
  const format =
    formatValues.length === 0 ? "csv" : formatValues.length === 1 ? formatValues[0] : undefined;
  if (format === undefined || !(EXPORT_FORMATS as readonly string[]).includes(format)) {
    return {
      ok: false,
      code: "invalid_export_format",
      message: `format must be one of ${EXPORT_FORMATS.join(", ")} (got ${formatValues.map((v) => JSON.stringify(v.slice(0, 40))).join(", ")})`,
    };
  }
  return { ok: true, data: data as ExportData, format: format as ExportFormat };
}

/**
 * `GET /api/compare/export?ids=1,2&format&data` → one download of the runs' benchmark points;
 * `ids` (repeatable, comma-separated, 1..12 distinct run ids) is checked here, `data`/`format` by
 * {@link parseExportQuery} (their own 400 codes).
 */
export const compareExportRoute = defineRoute({
  route: "GET /api/compare/export",
  query: z.object({
    ids: z
      .array(z.string())
      .optional()
      .transform((value, ctx) => {
        const parsed = parseIdList(value);
        if (parsed.ok) return parsed.ids;
        ctx.addIssue({ code: "custom", message: parsed.message });
        return z.NEVER;
      }),
  }),
  queryArrays: ["ids"],
});
