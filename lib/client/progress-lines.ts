import { z } from "zod";

import {
  anyNumber,
  describeIssues,
  EVENT_LEVELS,
  parseLenientJson,
  runArtifactFrame,
  runProgressFrame,
  step64,
} from "@/lib/protocol";

/**
 * Progress lines a command prints for `pitwall run` (docs/worker-clients.md):
 *
 * (a) `PITWALL {json}`: a line that is `PITWALL`, whitespace, then one JSON object (bare NaN and
 *     ±Infinity allowed, as Python's `json.dumps` writes them), e.g.
 *     `PITWALL {"done":10,"total":100,"counters":{"s3.uploaded":5},"metrics":{"loss":0.5},"step":10}`.
 * (b) tqdm's default bar (tqdm 4.x `{l_bar}{bar}{r_bar}`), e.g.
 *     ` 45%|████▌     | 450/1000 [00:10<00:12, 45.00it/s]`, or without a total `450it [00:10, 45.00it/s]`.
 */

/** The JSON object of a `PITWALL` line. Unknown keys are rejected so typos surface. */
export const pitwallLine = z.strictObject({
  /** Items done so far (cumulative). */
  done: runProgressFrame.shape.done,
  /** Items in all. */
  total: runProgressFrame.shape.total,
  /** What the items are (samples, prompts…). */
  unit: runProgressFrame.shape.unit,
  /** Cumulative counters of this process (`s3.uploaded`), gauges (`s3.inflight`, `disk.freeBytes`). */
  counters: runProgressFrame.shape.counters,
  /** Metric values at `step` (`loss`, `eval/accuracy`, `tau`); NaN and ±Infinity kept. */
  metrics: z.record(z.string().min(1).max(200), anyNumber).optional(),
  /** Step of `metrics` (default: `done` of this line, else the latest `done`, else a line counter). */
  step: step64.optional(),
  /** A message for the run's event log: a string (level info) or `{level, message}`. */
  event: z
    .union([
      z.string().min(1).max(10_000),
      z.strictObject({
        level: z.enum(EVENT_LEVELS).default("info"),
        message: z.string().min(1).max(10_000),
      }),
    ])
    .optional(),
  /** A checkpoint or uploaded object. */
  artifact: z
    .strictObject({
      kind: runArtifactFrame.shape.kind,
      uri: runArtifactFrame.shape.uri,
      sizeBytes: runArtifactFrame.shape.sizeBytes,
      step: runArtifactFrame.shape.step,
    })
    .optional(),
});

/** A parsed `PITWALL` line. */
export type PitwallLine = z.infer<typeof pitwallLine>;

/** A tqdm bar's position: `done` of `total` (absent when tqdm has no total) and its unit when not the default "it". */
export interface TqdmProgress {
  done: number;
  total?: number;
  unit?: string;
}

/** What a line of output means for the run. */
export type ProgressLine =
  | { kind: "pitwall"; line: PitwallLine }
  | { kind: "tqdm"; progress: TqdmProgress }
  | { kind: "invalid"; message: string };

const PITWALL_PREFIX = /^\s*PITWALL\s+(?=\{)/;

/**
 * Classifies one line (or `\r`-segment) of output: a `PITWALL {json}` line, a tqdm bar, or null
 * for ordinary output. A line starting `PITWALL {` that is not a valid object yields `invalid`
 * with the reason (bad JSON, unknown key, negative counter…).
 */
export function parseProgressLine(text: string): ProgressLine | null {
  const prefix = PITWALL_PREFIX.exec(text);
  if (prefix) {
    let value: unknown;
    try {
      value = parseLenientJson(text.slice(prefix[0].length));
    } catch (err) {
      return { kind: "invalid", message: `not JSON: ${(err as Error).message}` };
    }
    const parsed = pitwallLine.safeParse(value);
    if (!parsed.success) return { kind: "invalid", message: describeIssues(parsed.error) };
    return { kind: "pitwall", line: parsed.data };
  }
  const progress = parseTqdm(text);
  return progress ? { kind: "tqdm", progress } : null;
}

// `| 450/1000 [00:10<00:12, 45.00it/s]`: n_fmt/total_fmt, then [elapsed<remaining, rate{postfix}].
const TQDM_WITH_TOTAL =
  /(?:^|[\s|:])(\d+(?:\.\d+)?[kMGTPEZY]?)\/(\d+(?:\.\d+)?[kMGTPEZY]?)\s*\[(?:\d+:)?\d+:\d\d<(?:(?:\d+:)?\d+:\d\d|\?)(?:,\s*([^\]]*))?\]/g;
// `450it [00:10, 45.00it/s]` (no total): n_fmt with the unit glued on, then [elapsed, rate{postfix}].
const TQDM_NO_TOTAL =
  /(?:^|[\s:])(\d+(?:\.\d+)?[kMGTPEZY]?)([A-Za-z_]\w*)?\s*\[(?:\d+:)?\d+:\d\d,\s*([^\]]*)\]/g;
// `45.00it/s`, `?it/s`, `2.21s/it`, `1.23kit/s`.
const RATE = /^(?:(?:\?|\d+(?:\.\d+)?)([A-Za-z_]\w*)\/s|\d+(?:\.\d+)?s\/([A-Za-z_]\w*))/;
const SI = "kMGTPEZY";

/**
 * Reads tqdm 4.x's default bar format (`{desc}: {percentage}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}{postfix}]`
 * and the no-total form `{desc}: {n}{unit} [{elapsed}, {rate}{postfix}]`), including
 * `unit_scale` suffixes (`1.20k/914k`, read as 1200/914000). Returns null for anything else.
 */
export function parseTqdm(text: string): TqdmProgress | null {
  const withTotal = lastMatch(TQDM_WITH_TOTAL, text);
  if (withTotal) {
    const scaled = /[a-zA-Z]$/.test(withTotal[1]!) || /[a-zA-Z]$/.test(withTotal[2]!);
    const done = scaledNumber(withTotal[1]!);
    const total = scaledNumber(withTotal[2]!);
    if (done === null || total === null) return null;
    return withUnit({ done, total }, rateUnit(withTotal[3], scaled));
  }
  const noTotal = lastMatch(TQDM_NO_TOTAL, text);
  if (noTotal) {
    const rate = noTotal[3] ?? "";
    if (!RATE.test(rate)) return null;
    const done = scaledNumber(noTotal[1]!);
    if (done === null) return null;
    return withUnit({ done }, rateUnit(rate, /[a-zA-Z]$/.test(noTotal[1]!)));
  }
  return null;
}

function lastMatch(re: RegExp, text: string): RegExpExecArray | null {
  re.lastIndex = 0;
  let last: RegExpExecArray | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) last = m;
  return last;
}

function withUnit(p: TqdmProgress, unit: string | undefined): TqdmProgress {
  return unit && unit !== "it" ? { ...p, unit } : p;
}

/** The unit in a tqdm rate (`45.00samples/s` → samples); strips an SI prefix when counts were scaled. */
function rateUnit(rate: string | undefined, scaled: boolean): string | undefined {
  const m = RATE.exec((rate ?? "").trim());
  let unit = m?.[1] ?? m?.[2];
  if (unit && scaled && unit.length > 1 && SI.includes(unit[0]!)) unit = unit.slice(1);
  return unit ? unit.slice(0, 50) : undefined;
}

/** `450` → 450, `1.20k` → 1200, `914k` → 914000 (tqdm's `format_sizeof`, divisor 1000), rounded to an integer count. */
function scaledNumber(s: string): number | null {
  const last = s.at(-1)!;
  const power = SI.indexOf(last);
  const n = Number(power >= 0 ? s.slice(0, -1) : s);
  if (!Number.isFinite(n)) return null;
  return Math.round(power >= 0 ? n * Math.pow(1000, power + 1) : n);
}
