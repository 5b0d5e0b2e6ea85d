import { describe, expect, test } from "vitest";

import { seededRng as rng } from "@/lib/random";

import { applyPatch, diffJson, jsonEqual, type JsonPatch } from "./live-patch";

interface View {
  run: {
    id: number;
    name: string;
    state: string;
    lastPushAt: string;
    tags: string[];
    notes?: string;
    config: Record<string, unknown>;
    points: Array<{ key: string; value: number | string }>;
  };
  progress: {
    asOf: string;
    done: number | null;
    samples: Array<{ at: number; done: number }>;
    events: Array<{ id: number; text: string }>;
  };
  metrics: { series: Array<{ key: string; points: Array<[number, number | string]> }> };
}

const initial = (): View => ({
  run: {
    id: 1,
    name: "train",
    state: "running",
    lastPushAt: "2026-12-01T00:00:00.000Z",
    tags: ["a"],
    config: { lr: 0.1 },
    points: [],
  },
  progress: { asOf: "2026-12-01T00:00:00.000Z", done: null, samples: [], events: [] },
  metrics: { series: [] },
});

/** One random change of the kinds a run sees: new points, progress samples, events, edits, series. */
function mutate(v: View, r: () => number, step: number): View {
  const next = structuredClone(v);
  const pick = Math.floor(r() * 10);
  const at = new Date(Date.UTC(2026, 11, 1) + step * 250).toISOString();
  next.run.lastPushAt = at;
  next.progress.asOf = at;
  if (pick === 0) next.run.points.push({ key: `c${step}`, value: r() < 0.1 ? "NaN" : r() });
  else if (pick === 1 && next.run.points.length)
    next.run.points[Math.floor(r() * next.run.points.length)]!.value = r();
  else if (pick === 2)
    next.run.points.splice(Math.floor(r() * (next.run.points.length + 1)), 0, {
      key: `i${step}`,
      value: r(),
    });
  else if (pick === 3) {
    next.progress.done = (next.progress.done ?? 0) + 1;
    next.progress.samples.push({ at: step, done: next.progress.done });
    // A capped window of the newest 20 samples: the oldest drop out.
    if (next.progress.samples.length > 20) next.progress.samples.shift();
  } else if (pick === 4) {
    // Newest-first events, capped at 10.
    next.progress.events.unshift({ id: step, text: `event ${step}` });
    next.progress.events = next.progress.events.slice(0, 10);
  } else if (pick === 5) {
    next.run.notes = r() < 0.5 ? `note ${step}` : undefined;
    next.run.tags = r() < 0.5 ? [...next.run.tags, `t${step}`] : next.run.tags.slice(1);
  } else if (pick === 6) {
    const key = `m${Math.floor(r() * 3)}`;
    let s = next.metrics.series.find((x) => x.key === key);
    if (!s) next.metrics.series.push((s = { key, points: [] }));
    for (let i = 0, n = 1 + Math.floor(r() * 5); i < n; i++)
      s.points.push([step * 10 + i, r() < 0.05 ? "Infinity" : r()]);
  } else if (pick === 7 && next.metrics.series.length) {
    // A downsampled series re-bucketed: every point moves.
    const s = next.metrics.series[0]!;
    s.points = s.points.filter((_, i) => i % 2 === 0);
  } else if (pick === 8) {
    next.run.state = ["running", "stale", "succeeded"][Math.floor(r() * 3)]!;
    delete next.run.config.lr;
    next.run.config[`k${step % 4}`] = { nested: [step, r()] };
  } else next.run.name = `train ${step}`;
  return next;
}

describe("diffJson / applyPatch", () => {
  test("merging every delta of a random sequence of pushes equals the full value, for 40 seeds", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed);
      let server = initial();
      let merged = structuredClone(server);
      for (let step = 1; step <= 150; step++) {
        const next = mutate(server, r, step);
        // The delta travels as JSON text, as over the socket.
        const patch = JSON.parse(
          JSON.stringify(diffJson(server, next) ?? null),
        ) as JsonPatch | null;
        merged = applyPatch(merged, patch ?? undefined);
        server = next;
        expect(jsonEqual(merged, server), `seed ${seed} step ${step}`).toBe(true);
      }
      expect(JSON.parse(JSON.stringify(merged))).toEqual(JSON.parse(JSON.stringify(server)));
    }
  });

  test("equal values have no patch; unchanged sub-trees keep their identity after a merge", () => {
    const a = initial();
    expect(diffJson(a, structuredClone(a))).toBeUndefined();
    const b = structuredClone(a);
    b.progress.done = 3;
    const merged = applyPatch(a, diffJson(a, b));
    expect(merged.progress.done).toBe(3);
    expect(merged.run).toBe(a.run);
    expect(merged.metrics).toBe(a.metrics);
    expect(a.progress.done).toBeNull();
  });

  test("new points are sent as an append, new front items as a prepend, not the whole list", () => {
    const points = Array.from({ length: 500 }, (_, i) => ({ step: i, value: i / 2 }));
    const grown = [...points, { step: 500, value: 1 }];
    expect(diffJson(points, grown)).toEqual({ x: 0, l: 500, p: [{ step: 500, value: 1 }] });
    const events = Array.from({ length: 10 }, (_, i) => ({ id: 10 - i }));
    const newer = [{ id: 11 }, ...events.slice(0, 9)];
    expect(diffJson(events, newer)).toEqual({ x: 0, l: 9, f: [{ id: 11 }] });
    const window = [...points.slice(1), { step: 500, value: 1 }];
    expect(diffJson(points, window)).toEqual({ x: 1, l: 499, p: [{ step: 500, value: 1 }] });
  });

  test("changed fields only: an object patch names the changed and the removed keys", () => {
    expect(diffJson({ a: 1, b: { c: 2, d: 3 }, e: "x" }, { a: 1, b: { c: 2, d: 4 } })).toEqual({
      o: { b: { o: { d: { r: 4 } } } },
      d: ["e"],
    });
    expect(diffJson([1, 2, 3], { a: 1 })).toEqual({ r: { a: 1 } });
    expect(diffJson([1, 2, 3], [4, 5, 6])).toEqual({ r: [4, 5, 6] });
  });

  test("a list whose every item changed a little is patched item by item, not sent again", () => {
    // 50 series of 300 points, each gaining one point: the run page's metrics on every step.
    const series = Array.from({ length: 50 }, (_, k) => ({
      key: `k${k}`,
      points: Array.from({ length: 300 }, (_, i) => ({ step: i, value: k + i })),
    }));
    const next = series.map((s) => ({ ...s, points: [...s.points, { step: 300, value: 1 }] }));
    const patch = diffJson(series, next);
    expect(patch).not.toHaveProperty("r");
    expect(JSON.stringify(patch).length).toBeLessThan(JSON.stringify(next).length / 20);
    expect(applyPatch(series, patch)).toEqual(next);
  });
});
