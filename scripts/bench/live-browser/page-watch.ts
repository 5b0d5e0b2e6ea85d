/** Page script (a string: tsx wraps named functions in a helper the page lacks): step -> epoch ms seen, long tasks. */
export const WATCH = `(() => {
  const w = window;
  w.__seen = {};
  w.__long = [];
  let last = -1;
  const note = () => {
    const f = document.querySelector('figure[data-key="loss"]');
    const s = f ? Number(f.getAttribute("data-last-step")) : NaN;
    if (Number.isFinite(s) && s > last) {
      const t = performance.timeOrigin + performance.now();
      for (let k = last + 1; k <= s; k++) if (w.__armed) w.__seen[k] = t;
      last = s;
    }
  };
  new MutationObserver(note).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-last-step"] });
  w.__msg = {};
  w.__wire = {};
  let lastMsg = -1;
  // The newest step a live message or a series response carries: any "step" member, as a number,
  // a decimal string, or a replaced value ({"r":N}) inside a delta's patch (lib/protocol/live-patch.ts).
  const maxStep = (v, depth) => {
    let hi = -1;
    if (depth > 12 || v === null || typeof v !== "object") return hi;
    if (Array.isArray(v)) { for (const x of v) hi = Math.max(hi, maxStep(x, depth + 1)); return hi; }
    for (const k in v) {
      const x = v[k];
      if (k === "step") {
        const s = x !== null && typeof x === "object" && "r" in x ? x.r : x;
        const n = typeof s === "number" ? s : typeof s === "string" && /^\\d+$/.test(s) ? Number(s) : NaN;
        if (Number.isFinite(n)) hi = Math.max(hi, n);
        else hi = Math.max(hi, maxStep(x, depth + 1));
      } else hi = Math.max(hi, maxStep(x, depth + 1));
    }
    return hi;
  };
  const noteMsg = (hi, t) => {
    if (hi > lastMsg) {
      for (let k = Math.max(lastMsg + 1, hi - 1000); k <= hi; k++) w.__msg[k] = t;
      lastMsg = hi;
    }
  };
  const W = window.WebSocket;
  window.WebSocket = class extends W {
    constructor(...a) {
      super(...a);
      this.addEventListener("message", (e) => {
        if (!w.__armed || typeof e.data !== "string") return;
        const kind = e.data.startsWith('{"type":"snapshot"') ? "snapshot" : e.data.startsWith('{"type":"delta"') ? "delta" : "other";
        const c = (w.__wire[kind] ??= { n: 0, bytes: 0 });
        c.n++;
        c.bytes += e.data.length;
        if (!e.data.includes('"step"')) return;
        const t = performance.timeOrigin + performance.now();
        try { noteMsg(maxStep(JSON.parse(e.data), 0), t); } catch {}
      });
    }
  };
  // A page that refetches the series over HTTP instead: the response of the metrics read counts.
  const F = window.fetch;
  window.fetch = async (...a) => {
    const res = await F(...a);
    const url = String(a[0] && a[0].url ? a[0].url : a[0]);
    if (w.__armed && /\\/api\\/runs\\/\\d+\\/metrics/.test(url)) {
      res.clone().json().then((body) => noteMsg(maxStep(body, 0), performance.timeOrigin + performance.now())).catch(() => {});
    }
    return res;
  };
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) w.__long.push(e.duration); }).observe({ type: "longtask", buffered: true });
  } catch {}
})();`;

/** What one watching page measured over a round. */
export interface PageFigures {
  /** push (scheduled send) -> `loss` chart holds the step, ms, one per scheduled step (Infinity: never). */
  latencies: number[];
  /** push (scheduled send) -> a live message naming the step reached the page, ms (anchor). */
  messageLatencies: number[];
  longTasks: number[];
  /** HTTP requests of the page per second, from arming to the end of the drain. */
  requestsPerS: number;
  /** Live messages the page received while armed, by type ("snapshot", "delta", "other"): count and characters. */
  wire: Record<string, { n: number; bytes: number }>;
}
