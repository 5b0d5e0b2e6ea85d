import { describe, expect, it } from "vitest";
import { z } from "zod";

import { defineRoute, idParams } from "@/lib/api/contract";
import { runMetricsRoute } from "@/lib/api/runs";

import { InputError } from "./errors";
import { readInput } from "./route-input";

// readInput parses a request once with its route's contract; bad input is an InputError that
// `handle` answers with docs/api.md's error body. No database, no server.

const ctx = (params: Record<string, string>) => ({ params: Promise.resolve(params) });

async function failure(
  p: Promise<unknown>,
): Promise<{ status: number; code: string; message: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  const e = err as InputError;
  return { status: e.status, code: e.code, message: e.message };
}

const bodyRoute = defineRoute({
  route: "POST /api/things/:id",
  params: idParams("thing"),
  body: z.strictObject({ name: z.string().min(1) }),
});

function post(body: string, contentType = "application/json"): Request {
  return new Request("http://x/api/things/7", {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
}

describe("readInput", () => {
  it("parses path, repeated query keys and steps with the contract", async () => {
    const req = new Request(
      "http://x/api/runs/42/metrics?key=loss&key=lr&fromStep=5&maxPoints=100",
    );
    const input = await readInput(req, ctx({ id: "42" }), runMetricsRoute);
    expect(input.params).toEqual({ id: 42 });
    expect(input.query).toMatchObject({ key: ["loss", "lr"], fromStep: "5", maxPoints: 100 });
  });

  it("answers a bad id with invalid_query naming the id, whatever the spelling", async () => {
    for (const id of ["0", "-1", "1e3", "abc", " 5", "99999999999999999"]) {
      const req = new Request(`http://x/api/runs/${encodeURIComponent(id)}/metrics`);
      expect(await failure(readInput(req, ctx({ id }), runMetricsRoute))).toEqual({
        status: 400,
        code: "invalid_query",
        message: "run id must be a positive integer",
      });
    }
  });

  it("answers a bad query with invalid_query naming the parameter", async () => {
    const req = new Request("http://x/api/runs/1/metrics?fromStep=9&toStep=3");
    const f = await failure(readInput(req, ctx({ id: "1" }), runMetricsRoute));
    expect(f).toMatchObject({ status: 400, code: "invalid_query" });
    expect(f.message).toBe("fromStep must not be above toStep");
    const many = new Request("http://x/api/runs/1/metrics?maxPoints=abc");
    expect((await failure(readInput(many, ctx({ id: "1" }), runMetricsRoute))).message).toMatch(
      /^maxPoints: /,
    );
  });

  it("reads a JSON body: 415 unless JSON, invalid_json, too_deep, invalid_body, else the data", async () => {
    expect(await failure(readInput(post("{}", "text/plain"), ctx({ id: "7" }), bodyRoute))).toEqual(
      {
        status: 415,
        code: "unsupported_media_type",
        message: "send the body as application/json",
      },
    );
    expect(await failure(readInput(post("{"), ctx({ id: "7" }), bodyRoute))).toMatchObject({
      status: 400,
      code: "invalid_json",
    });
    const deep = "[".repeat(70) + "]".repeat(70);
    expect(await failure(readInput(post(deep), ctx({ id: "7" }), bodyRoute))).toMatchObject({
      status: 400,
      code: "too_deep",
    });
    const bad = await failure(readInput(post('{"name":""}'), ctx({ id: "7" }), bodyRoute));
    expect(bad).toMatchObject({ status: 400, code: "invalid_body" });
    expect(bad.message).toMatch(/^name: /);
    const ok = await readInput(post('{"name":"a"}'), ctx({ id: "7" }), bodyRoute);
    expect(ok).toEqual({ params: { id: 7 }, query: undefined, body: { name: "a" } });
  });

  it("cuts a body over 1 MiB with 413 body_too_large", async () => {
    const big = JSON.stringify({ name: "x".repeat(1024 * 1024) });
    const err = await readInput(post(big), ctx({ id: "7" }), bodyRoute).then(
      () => null,
      (e: unknown) => e as { status: number; code: string },
    );
    expect(err).toMatchObject({ status: 413, code: "body_too_large" });
  });
});
