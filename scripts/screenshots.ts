/**
 * Renders the README's screenshots from a running demo (`npm run demo`), in headless Chromium:
 *   BASE=http://127.0.0.1:8080 OUT=docs/screenshots npx tsx scripts/screenshots.ts
 * Signs in as the demo account, finds the demo's runs by name through the API and writes one PNG
 * per view (overview, pipeline, training, run, evals, compare, inbox, phone, wall).
 * Needs PITWALL_CHROMIUM or /usr/bin/chromium. Exits 1 when a page or a run is missing.
 */
import { chromium } from "@playwright/test";

const base = process.env.BASE ?? "http://127.0.0.1:8080";
const out = process.env.OUT ?? "docs/screenshots";

const browser = await chromium.launch({
  executablePath: process.env.PITWALL_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
const page = await (await browser.newContext()).newPage();
await page.goto(`${base}/sign-in`);
await page.getByLabel(/email/i).fill("demo@pitwall.local");
await page.getByLabel(/password/i).fill("pitwall-demo");
await page.getByRole("button", { name: /sign in/i }).click();
await page.waitForURL((u) => !u.pathname.startsWith("/sign-in"));

/** Ids of the demo's runs whose name contains `q` (newest first). */
async function runIds(q: string): Promise<number[]> {
  const res = await page.request.get(`${base}/api/runs?q=${encodeURIComponent(q)}&limit=20`);
  const body = (await res.json()) as { runs: Array<{ id: number }> };
  if (body.runs.length === 0) throw new Error(`no demo run named like "${q}"`);
  return body.runs.map((r) => r.id);
}

const [extraction] = await runIds("Hidden states");
const [training] = await runIds("DFlash drafter");
const [benchmark] = await runIds("TP2 MTP sweep");
const deployments = (await runIds("sweep + long context")).slice(0, 3);

const views: Array<{ name: string; path: string; w: number; h: number; dark?: boolean }> = [
  { name: "overview", path: "/", w: 1440, h: 900 },
  { name: "pipeline", path: `/runs/${extraction}`, w: 1440, h: 1000 },
  { name: "training", path: `/runs/${training}`, w: 1440, h: 1000 },
  { name: "run", path: `/runs/${benchmark}`, w: 1440, h: 1000 },
  { name: "evals", path: "/evals", w: 1440, h: 1000 },
  { name: "compare", path: `/compare?ids=${deployments.join(",")}`, w: 1440, h: 1000 },
  { name: "inbox", path: "/inbox", w: 1440, h: 900 },
  { name: "phone", path: "/", w: 390, h: 844 },
  { name: "wall", path: "/?wall=1", w: 1920, h: 1080, dark: true },
];
for (const v of views) {
  await page.setViewportSize({ width: v.w, height: v.h });
  await page.emulateMedia({ colorScheme: v.dark ? "dark" : "light" });
  const res = await page.goto(`${base}${v.path}`);
  if (!res?.ok()) throw new Error(`${v.path} answered ${res?.status()}`);
  await page.waitForLoadState("networkidle", { timeout: 5000 }).catch(() => undefined);
  await page.waitForTimeout(2000); // charts animate in
  await page.screenshot({ path: `${out}/${v.name}.png` });
  console.log(`wrote ${out}/${v.name}.png (${v.path})`);
}
await browser.close();
