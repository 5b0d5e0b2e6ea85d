import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// The plan an agent wrote is shown on the plan page, above its items, as rendered markdown
// (headings, lists, code, tables, links), and nothing in it runs: raw <script>, event-handler
// attributes, javascript: links and <iframe>s stay inert.

test("the plan page renders the plan's markdown above its items; script-injection attempts stay inert", async ({
  page,
  baseURL,
}) => {
  const token = createToken("e2e-plan-md");
  const worker = await connectWorker(baseURL!, token);
  const session = `e2e-md-${randomUUID()}`;
  const title = `Markdown plan ${randomUUID().slice(0, 6)}`;
  const body = [
    `# ${title}`,
    "",
    "Run the **decode sweep** on `kpro5`, then summarise.",
    "",
    "1. Warm up the server",
    "2. Throughput C=1..100",
    "",
    "| C | tok/s |",
    "|---|---|",
    "| 32 | 577.8 |",
    "",
    "```bash",
    "python -m sglang.bench_serving --max-concurrency 32",
    "```",
    "",
    "<script>window.__pwned = 'script'</script>",
    "",
    '<img src="x" onerror="window.__pwned = \'img\'">',
    "",
    "[click me](javascript:window.__pwned='link') and ![chart](x \"t\") inline <b onmouseover=\"window.__pwned='b'\">bold</b>",
    "",
    "<iframe src=\"javascript:window.__pwned='iframe'\"></iframe>",
    "",
    "[docs](https://example.com/sglang)",
  ].join("\n");
  const frame = (f: Record<string, unknown>) => ({ v: 1, id: randomUUID(), ...f });
  await worker.send(
    frame({
      type: "session.activity",
      session,
      source: "claude-code",
      state: "working",
      ts: Date.now(),
      title: "md session",
    }),
  );
  await worker.send(
    frame({
      type: "plan.propose",
      plan: `${session}:plan:1`,
      session,
      title,
      body,
      items: [{ content: "Warm up the server" }, { content: "Throughput C=1..100" }],
    }),
  );

  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto("/plans");
  await page.getByRole("link", { name: title }).first().click();
  const md = page.getByTestId("plan-markdown");
  await expect(md.getByRole("heading", { level: 1 })).toHaveText(title);
  await expect(md.locator("strong")).toHaveText("decode sweep");
  await expect(md.locator("ol > li")).toHaveText(["Warm up the server", "Throughput C=1..100"]);
  await expect(md.getByRole("table")).toContainText("577.8");
  await expect(md.locator("pre code")).toContainText("--max-concurrency 32");
  await expect(md.getByRole("link", { name: "docs" })).toHaveAttribute(
    "href",
    "https://example.com/sglang",
  );
  await expect(md.getByRole("link", { name: "docs" })).toHaveAttribute("rel", /noopener/);

  // The plan comes before its items on the page.
  const planBox = await page.getByText("as the agent wrote it").boundingBox();
  const itemsBox = await page.getByText("Proposed items").boundingBox();
  expect(planBox!.y).toBeLessThan(itemsBox!.y);

  // Inert: no script, iframe or handler made it into the DOM; the javascript: link lost its target.
  await expect(md.locator("script, iframe, [onerror], [onmouseover]")).toHaveCount(0);
  const link = md.getByText("click me");
  const href = await link.getAttribute("href");
  expect(href ?? "").not.toMatch(/javascript:/i);
  await page.waitForTimeout(300); // an onerror would have fired by now
  expect(
    await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned),
  ).toBeUndefined();
  expect(dialogs).toEqual([]);

  // The API returns the body as sent.
  const id = Number(new URL(page.url()).pathname.split("/").pop());
  const res = await page.request.get(`/api/plans/by-id/${id}`);
  expect(res.status()).toBe(200);
  expect((await res.json()).body).toBe(body);
});
