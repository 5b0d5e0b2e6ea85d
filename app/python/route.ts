import { findWheel, HOW_TO_BUILD } from "@/lib/server/python-wheel/wheel";

/** Evaluated per request: the wheel may be built after the server started. */
export const dynamic = "force-dynamic";

/**
 * GET /python (anonymous): a pip "find-links" page naming the built wheel, so
 * `pip install --no-index --find-links http://<pitwall>/python pitwall` works; 404 with build
 * instructions when no wheel was built.
 */
export async function GET(): Promise<Response> {
  const wheel = await findWheel();
  if (!wheel)
    return new Response(HOW_TO_BUILD, {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
    });
  const html = `<!doctype html><html><head><title>Pitwall Python client</title></head><body>
<p>pip install --no-index --find-links &lt;this page&gt; pitwall</p>
<a href="/python/${wheel.name}">${wheel.name}</a>
</body></html>
`;
  return new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } });
}
