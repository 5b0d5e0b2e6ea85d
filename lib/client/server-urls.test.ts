import { describe, expect, test } from "vitest";

import { readClientConfig } from "@/cli/config";

import { isFailoverStatus, joinUrl, parseServerUrls } from "./server-urls";
import { ingestUrl } from "./socket-wire";

describe("server URL lists (PITWALL_URL=http://a:8080,http://b:8080)", () => {
  test("comma-separated or listed, trimmed, trailing slashes and repeats dropped, order kept", () => {
    expect(parseServerUrls("http://a:8080")).toEqual(["http://a:8080"]);
    expect(parseServerUrls(" http://b:8080/ , http://a:8080,,http://b:8080")).toEqual([
      "http://b:8080",
      "http://a:8080",
    ]);
    expect(parseServerUrls(["http://a:8080,https://c/pitwall/", "ws://d:1/ws/ingest"])).toEqual([
      "http://a:8080",
      "https://c/pitwall",
      "ws://d:1/ws/ingest",
    ]);
    expect(parseServerUrls("http://a:8080,http://b:8080").map(ingestUrl)).toEqual([
      "ws://a:8080/ws/ingest",
      "ws://b:8080/ws/ingest",
    ]);
  });

  test("a bad entry or an empty list is an error naming it", () => {
    expect(() => parseServerUrls("http://a:8080,b:8080x")).toThrow(
      /'b:8080x' is not an http\(s\) URL/,
    );
    expect(() => parseServerUrls("http://a:8080;http://b:8080")).toThrow(
      /is not a URL|not an http/,
    );
    expect(() => parseServerUrls("not a url")).toThrow("'not a url' is not a URL");
    expect(() => parseServerUrls(" , ")).toThrow("no Pitwall server URL given");
    expect(() => parseServerUrls("ftp://a")).toThrow("'ftp://a' is not an http(s) URL");
  });

  test("the CLI's config reads the list and names PITWALL_URL on a bad one", () => {
    expect(
      readClientConfig({ PITWALL_URL: "http://a:8080, http://b:8080/", PITWALL_TOKEN: "t" }),
    ).toMatchObject({ urls: ["http://a:8080", "http://b:8080"] });
    expect(readClientConfig({}).urls).toEqual(["http://localhost:8080"]);
    expect(() => readClientConfig({ PITWALL_URL: "http://a:8080,nope" })).toThrow(
      /^PITWALL_URL: 'nope' is not a URL/,
    );
  });

  test("only 5xx fails over (a 4xx is the same on every instance); paths keep a proxy prefix", () => {
    expect([200, 400, 401, 404, 413, 429, 499].map(isFailoverStatus)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect([500, 502, 503, 504].map(isFailoverStatus)).toEqual([true, true, true, true]);
    expect(joinUrl("https://c/pitwall/", "/api/ingest")).toBe("https://c/pitwall/api/ingest");
  });
});

describe("the agent hooks' URL list", async () => {
  const { loadConfig, parseUrls } = await import("@/clients/agent-hooks/lib/config.mjs");
  test("PITWALL_URL or the config file's url (string or array): several instances, bad entries dropped", () => {
    expect(parseUrls("http://a:8080/, http://b:8080,bogus,ftp://x,http://a:8080")).toEqual([
      "http://a:8080",
      "http://b:8080",
    ]);
    expect(parseUrls(["http://a:8080", "http://b:8080,http://c:8080"])).toEqual([
      "http://a:8080",
      "http://b:8080",
      "http://c:8080",
    ]);
    expect(parseUrls(undefined)).toEqual([]);
    const cfg = loadConfig({
      PITWALL_URL: "http://a:8080,http://b:8080",
      PITWALL_AGENT_CONFIG: "/nonexistent/agent.json",
      HOME: "/nonexistent",
    });
    expect(cfg).toMatchObject({ url: "http://a:8080", urls: ["http://a:8080", "http://b:8080"] });
    expect(
      loadConfig({ PITWALL_AGENT_CONFIG: "/nonexistent/agent.json", HOME: "/nonexistent" }),
    ).toMatchObject({ url: "", urls: [] });
  });
});
