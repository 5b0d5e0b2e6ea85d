import { z } from "zod";

import type { StoredRunLabels } from "@/lib/importers/relabel";

import { IngestHttpError } from "./http";
import { AllServersFailedError, fetchWithFailover, type ServerUrls } from "./server-urls";

/**
 * Reads what the server holds for a run key, for `pitwall import` to tell what a re-import
 * changes (lib/importers/relabel.ts): `GET /api/runs?q=<key>&archived=include` finds the run,
 * `GET /api/runs/:id` gives its name, edit, last push and point scenarios. Worker tokens may read.
 */

const listShape = z.object({ runs: z.array(z.object({ id: z.number(), key: z.string() })) });
const detailShape = z.object({
  name: z.string(),
  editedAt: z.string().nullable(),
  editedBy: z.string().nullable(),
  lastPushAt: z.string(),
  benchmarkPoints: z.array(z.object({ key: z.string(), scenario: z.string() })),
});

async function getJson(baseUrl: ServerUrls, token: string, path: string): Promise<unknown> {
  let res: Response;
  try {
    ({ res } = await fetchWithFailover(
      baseUrl,
      path,
      { headers: { authorization: `Bearer ${token}` } },
      { timeoutMs: 30_000 },
    ));
  } catch (err) {
    if (!(err instanceof AllServersFailedError)) throw err;
    if (!err.lastResponse)
      throw new IngestHttpError(
        `cannot reach Pitwall: ${err.attempts.map((a) => `${a.url} (${a.reason})`).join("; ")}`,
        null,
        null,
      );
    res = err.lastResponse;
  }
  if (res.status === 404) return null;
  if (!res.ok)
    throw new IngestHttpError(
      `Pitwall refused GET ${path.split("?")[0]} (HTTP ${res.status}): ${(await res.text()).slice(0, 300)}`,
      res.status,
      null,
    );
  return res.json();
}

/**
 * The stored labels of the run with key `runKey`, or null when the server has no such run.
 * @throws IngestHttpError when the server cannot be reached or refuses the read (401, 5xx), or
 *   answers in an unexpected shape.
 */
export async function fetchStoredRunLabels(
  baseUrl: ServerUrls,
  token: string,
  runKey: string,
): Promise<StoredRunLabels | null> {
  const list = listShape.safeParse(
    await getJson(
      baseUrl,
      token,
      `/api/runs?q=${encodeURIComponent(runKey)}&archived=include&limit=20`,
    ),
  );
  if (!list.success) throw new IngestHttpError("unexpected answer from GET /api/runs", null, null);
  const found = list.data.runs.find((r) => r.key === runKey);
  if (!found) return null;
  const raw = await getJson(baseUrl, token, `/api/runs/${found.id}`);
  if (raw === null) return null;
  const detail = detailShape.safeParse(raw);
  if (!detail.success)
    throw new IngestHttpError(`unexpected answer from GET /api/runs/${found.id}`, null, null);
  const d = detail.data;
  return {
    name: d.name,
    editedAt: d.editedAt,
    editedBy: d.editedBy,
    lastPushAt: d.lastPushAt,
    pointScenarios: new Map(d.benchmarkPoints.map((p) => [p.key, p.scenario])),
  };
}
