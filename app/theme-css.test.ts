import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";

import { WALL_THEME } from "./_components/wall-theme";

// The dark palette lives in two CSS blocks (chosen dark; system preference dark) and in the
// wall's inline copy: all three must stay identical, and light must win when chosen.

const css = fs.readFileSync(path.join(import.meta.dirname, "globals.css"), "utf8");

function declarations(block: string): Record<string, string> {
  return Object.fromEntries(
    [...block.matchAll(/(--[\w-]+|color-scheme):\s*([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim()]),
  );
}

function blockAfter(marker: string): string {
  const start = css.indexOf(marker);
  expect(start, marker).toBeGreaterThanOrEqual(0);
  const open = css.indexOf("{", start + marker.length - 1);
  return css.slice(open + 1, css.indexOf("}", open));
}

test("chosen dark, system dark and the wall share one palette; system dark yields to a chosen light", () => {
  const chosen = declarations(blockAfter(':root[data-theme="dark"] {'));
  const system = declarations(
    blockAfter(':root:not([data-theme="light"]):not([data-theme="dark"]) {'),
  );
  expect(Object.keys(chosen).length).toBeGreaterThan(30);
  expect(system).toEqual(chosen);
  const { colorScheme, ...wallVars } = WALL_THEME as unknown as Record<string, string>;
  expect(
    declarations(
      Object.entries({ "color-scheme": colorScheme, ...wallVars })
        .map(([k, v]) => `${k}: ${v};`)
        .join("\n"),
    ),
  ).toEqual(chosen);
  expect(css).toMatch(
    /@media \(prefers-color-scheme: dark\) \{\s*:root:not\(\[data-theme="light"\]\)/,
  );
});
