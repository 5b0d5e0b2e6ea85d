import { parseLenientJson } from "../protocol/json";
import { iterateLines } from "./source-text";

/**
 * Format detection shared by the JSON-lines importers (benchmark result rows, LLaMA-Factory
 * trainer_log.jsonl, pretty-printed documents such as trainer_state.json): the caller says what a
 * parsed value is, this module decides which values to look at.
 */

/** How many non-blank lines {@link detectByLines} looks at before giving up. */
export const DETECT_MAX_LINES = 20;

/**
 * The first non-null `classify` result over the JSON values of `text`'s first
 * {@link DETECT_MAX_LINES} non-blank lines (bare NaN/Infinity accepted; a line that is no JSON is
 * classified as `undefined`). When the first non-blank line starts with `{` but is no JSON by
 * itself, the whole text is tried as one JSON document (pretty-printed); if it is one, its
 * classification is the answer (its lines are fragments of it, not records).
 * Returns null when nothing matches. Never throws (unless `classify` does).
 */
export function detectByLines<T>(text: string, classify: (value: unknown) => T | null): T | null {
  let seen = 0;
  for (const { text: line } of iterateLines(text)) {
    if (!/\S/.test(line)) continue;
    let value: unknown;
    try {
      value = parseLenientJson(line);
    } catch {
      if (seen === 0 && line.trimStart().startsWith("{")) {
        const whole = parseWholeDocument(text);
        if (whole.ok) return classify(whole.value);
      }
      value = undefined;
    }
    const found = classify(value);
    if (found !== null) return found;
    if (++seen >= DETECT_MAX_LINES) break;
  }
  return null;
}

function parseWholeDocument(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return {
      ok: true,
      value: parseLenientJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text),
    };
  } catch {
    return { ok: false };
  }
}
