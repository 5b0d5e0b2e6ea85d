/**
 * Prometheus text exposition format 0.0.4 (what SGLang's and vLLM's `GET /metrics` serve through
 * prometheus_client, and NVIDIA's dcgm-exporter) → flat samples. Pure, no I/O.
 *
 * Our own parser, not `parse-prometheus-text-format` 1.1.1: evaluated on the recorded SGLang
 * exposition, that library dropped histogram `_sum`/`_count`, merged the buckets of histograms that
 * differ only by a `dp_rank` label (losing all but one rank), and threw on a single malformed line
 * (losing the whole scrape). Here every line is independent: a bad line is reported and skipped.
 */

/** One sample line: `name{label="v",…} value [timestampMs]`. */
export interface ExpositionSample {
  /** Full sample name, e.g. `sglang:time_to_first_token_seconds_bucket`. */
  name: string;
  labels: Record<string, string>;
  /** Go/Python float: may be NaN or ±Infinity. */
  value: number;
  /** Optional timestamp at the end of the line, epoch ms. */
  timestampMs?: number;
}

/** A parsed scrape: samples in order, `# TYPE` declarations, and the lines that could not be read. */
export interface Exposition {
  samples: ExpositionSample[];
  /** Metric family name → declared type (`counter`, `gauge`, `histogram`, `summary`, `untyped`). */
  types: Map<string, string>;
  /** Lines skipped as malformed (1-based line numbers). */
  errors: Array<{ line: number; message: string }>;
}

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/**
 * Parses exposition text. Never throws: malformed lines land in `errors`. Values accept the
 * spellings prometheus_client and Go write (`1.5e+06`, `NaN`, `+Inf`, `-Inf`, `Inf`).
 */
export function parseExposition(text: string): Exposition {
  const out: Exposition = { samples: [], types: new Map(), errors: [] };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    if (line.startsWith("#")) {
      const m = /^#\s*TYPE\s+([a-zA-Z_:][a-zA-Z0-9_:]*)\s+(\w+)\s*$/.exec(line);
      if (m) out.types.set(m[1]!, m[2]!.toLowerCase());
      continue;
    }
    const parsed = parseSampleLine(line);
    if (typeof parsed === "string") out.errors.push({ line: i + 1, message: parsed });
    else out.samples.push(parsed);
  }
  return out;
}

/** Parses a float as written in the exposition; null when it is not one. */
export function parseExpositionFloat(text: string): number | null {
  switch (text) {
    case "NaN":
      return NaN;
    case "+Inf":
    case "Inf":
      return Infinity;
    case "-Inf":
      return -Infinity;
  }
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return null;
  return Number(text);
}

function parseSampleLine(line: string): ExpositionSample | string {
  const nameMatch = NAME_RE.exec(line);
  if (!nameMatch) return "no metric name";
  const name = nameMatch[0];
  let pos = name.length;
  const labels: Record<string, string> = {};
  if (line[pos] === "{") {
    pos++;
    for (;;) {
      while (line[pos] === " ") pos++;
      if (line[pos] === "}") {
        pos++;
        break;
      }
      const ln = LABEL_NAME_RE.exec(line.slice(pos));
      if (!ln) return "bad label name";
      pos += ln[0].length;
      if (line[pos] !== "=" || line[pos + 1] !== '"') return `label ${ln[0]}: expected ="…"`;
      pos += 2;
      let value = "";
      for (;;) {
        const c = line[pos];
        if (c === undefined) return `label ${ln[0]}: unterminated value`;
        pos++;
        if (c === '"') break;
        if (c === "\\") {
          const e = line[pos++];
          value += e === "n" ? "\n" : (e ?? "");
        } else value += c;
      }
      labels[ln[0]] = value;
      while (line[pos] === " ") pos++;
      if (line[pos] === ",") pos++;
      else if (line[pos] !== "}") return "expected ',' or '}' after a label";
    }
  }
  const rest = line.slice(pos).trim().split(/\s+/);
  if (rest.length < 1 || rest.length > 2 || rest[0] === "") return "expected a value";
  const value = parseExpositionFloat(rest[0]!);
  if (value === null) return `not a number: ${rest[0]}`;
  const sample: ExpositionSample = { name, labels, value };
  if (rest[1] !== undefined) {
    const ts = Number(rest[1]);
    if (!Number.isInteger(ts)) return `bad timestamp: ${rest[1]}`;
    sample.timestampMs = ts;
  }
  return sample;
}
