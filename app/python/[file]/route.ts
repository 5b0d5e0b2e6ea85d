import fs from "node:fs/promises";

import { findWheel, HOW_TO_BUILD, isWheelName } from "@/lib/server/python-wheel/wheel";

/** Evaluated per request: the wheel may be built after the server started. */
export const dynamic = "force-dynamic";

/**
 * GET /python/pitwall.whl (anonymous): 302 to the built wheel's real file name, which pip needs
 * (`pip install` refuses a URL whose last part is not a valid wheel name).
 * GET /python/pitwall-<version>-py3-none-any.whl: the wheel itself (`application/zip`).
 * 404 with build instructions (text/plain) when no wheel was built or the name is another one.
 */
export async function GET(
  request: Request,
  ctx: { params: Promise<{ file: string }> },
): Promise<Response> {
  const { file } = await ctx.params;
  const wheel = await findWheel();
  if (!wheel) return text(HOW_TO_BUILD, 404);
  if (file === "pitwall.whl") {
    return new Response(null, {
      status: 302,
      headers: { Location: `/python/${wheel.name}`, "Cache-Control": "no-store" },
    });
  }
  if (!isWheelName(file) || file !== wheel.name) {
    return text(`No such file. The wheel this server has is /python/${wheel.name}\n`, 404);
  }
  const body = await fs.readFile(wheel.file);
  return new Response(new Uint8Array(body), {
    headers: {
      "Content-Type": "application/zip",
      "Content-Length": String(body.length),
      "Content-Disposition": `attachment; filename="${wheel.name}"`,
      "Cache-Control": "no-cache",
    },
  });
}

function text(body: string, status: number): Response {
  return new Response(body, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
