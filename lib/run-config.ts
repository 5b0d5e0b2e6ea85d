import { formatConfigValue } from "./format";

/**
 * Run-config display: flattens a run's free-form `config` into labelled rows, known keys first
 * (model, engine + version, parallelism, speculative decoding, flags, dataset, lengths), and finds
 * the keys that differ between runs for the compare page. Pure functions.
 */

/** One displayed config row. `key` is the dotted path in `config`. */
export interface ConfigEntry {
  key: string;
  label: string;
  value: unknown;
  /** Rank of the known group it belongs to (lower shows first); unknown keys share the last rank. */
  rank: number;
}

const PARALLEL =
  /^(tp|dp|ep|pp|cp|sp)(_?size)?$|^(tensor|data|expert|pipeline|context|sequence)[_-]?parallel/i;
const SPECULATIVE = /spec|draft|eagle|mtp|nextn|medusa|dflash|lookahead|ngram/i;
const FLAGS = /^(flags|args|extra_?args|server_?args|cli_?args|launch_?args)$/i;

const LABELS: Record<string, string> = {
  model: "Model",
  engine: "Engine",
  engineVersion: "Engine version",
  tp: "TP",
  dp: "DP",
  ep: "EP",
  pp: "PP",
  cp: "CP",
  dataset: "Dataset",
  inputLen: "Input length (tok)",
  outputLen: "Output length (tok)",
  flags: "Flags",
};

function rankOf(path: string): number {
  const leaf = path.split(".").pop() ?? path;
  if (path === "model") return 0;
  if (path === "engine" || path === "engineVersion") return 1;
  if (PARALLEL.test(leaf)) return 2;
  if (SPECULATIVE.test(path)) return 3;
  if (FLAGS.test(leaf)) return 4;
  if (path === "dataset") return 5;
  if (path === "inputLen" || path === "outputLen") return 6;
  return 10;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Flattens nested objects into dotted keys (arrays stay values); empty objects are dropped. */
export function flattenConfig(
  config: Record<string, unknown>,
  prefix = "",
): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(config)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (isPlainObject(v)) out.push(...flattenConfig(v, path));
    else out.push([path, v]);
  }
  return out;
}

/** Config rows, known keys first (stable otherwise); null/undefined values are left out. */
export function configEntries(config: Record<string, unknown>): ConfigEntry[] {
  const engine = typeof config.engine === "string" ? config.engine : null;
  const version =
    typeof config.engineVersion === "string" || typeof config.engineVersion === "number"
      ? String(config.engineVersion)
      : null;
  return (
    flattenConfig(config)
      .filter(([, v]) => v !== null && v !== undefined)
      // Engine and version read as one fact ("sglang 0.5.11").
      .filter(([k]) => !(k === "engineVersion" && engine))
      .map(([k, v]): [string, unknown] =>
        k === "engine" && engine ? [k, engineLabel(engine, version)] : [k, v],
      )
      .map(([key, value], i) => ({ key, label: LABELS[key] ?? key, value, rank: rankOf(key), i }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map(({ key, label, value, rank }) => ({ key, label, value, rank }))
  );
}

/** "sglang 0.5.11", "vllm", or null. */
export function engineLabel(engine: string | null, version: string | null): string | null {
  if (!engine) return version ? `? ${version}` : null;
  return version ? `${engine} ${version}` : engine;
}

/** A config row across several runs. `values[i]` is run i's value (undefined when it lacks the key). */
export interface ConfigDiffRow {
  key: string;
  label: string;
  values: unknown[];
  differs: boolean;
}

/**
 * Rows for every config key of any run, marking those whose displayed value differs between
 * runs (a missing key differs from a present one). Ordered like {@link configEntries}.
 */
export function configDiff(configs: ReadonlyArray<Record<string, unknown>>): ConfigDiffRow[] {
  const maps = configs.map(
    (c) => new Map(flattenConfig(c).filter(([, v]) => v !== null && v !== undefined)),
  );
  const order: string[] = [];
  const seen = new Set<string>();
  for (const m of maps)
    for (const k of m.keys()) if (!seen.has(k) && (seen.add(k), true)) order.push(k);
  return order
    .map((key, i) => ({ key, i, rank: rankOf(key) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map(({ key }) => {
      const values = maps.map((m) => m.get(key));
      const texts = values.map((v) => (v === undefined ? "\u0000missing" : formatConfigValue(v)));
      return { key, label: LABELS[key] ?? key, values, differs: new Set(texts).size > 1 };
    });
}
