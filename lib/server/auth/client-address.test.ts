import { describe, expect, test } from "vitest";

import { parseEnv } from "@/lib/server/env";

import { parseTrustedProxies, resolveClientAddress } from "./client-address";

describe("resolveClientAddress", () => {
  const trusted = parseTrustedProxies("10.0.0.0/8, 127.0.0.1, ::1");

  test("from an untrusted peer, X-Forwarded-For is ignored: the socket address counts", () => {
    expect(resolveClientAddress("198.51.100.9", "203.0.113.1", trusted)).toBe("198.51.100.9");
    expect(resolveClientAddress("::ffff:198.51.100.9", "203.0.113.1, 10.0.0.2", trusted)).toBe(
      "198.51.100.9",
    );
  });

  test("from a trusted proxy, the nearest untrusted hop counts; a client-sent prefix cannot pick the address", () => {
    expect(resolveClientAddress("127.0.0.1", "203.0.113.1", trusted)).toBe("203.0.113.1");
    // The client sent "1.2.3.4"; the proxy appended the address it saw, 203.0.113.1.
    expect(resolveClientAddress("10.1.2.3", "1.2.3.4, 203.0.113.1, 10.0.0.5", trusted)).toBe(
      "203.0.113.1",
    );
    expect(resolveClientAddress("::1", ["1.2.3.4", "2001:db8::7"], trusted)).toBe("2001:db8::7");
  });

  test("a trusted peer without a usable header is the client itself", () => {
    expect(resolveClientAddress("127.0.0.1", undefined, trusted)).toBe("127.0.0.1");
    expect(resolveClientAddress("127.0.0.1", "garbage", trusted)).toBe("127.0.0.1");
    expect(resolveClientAddress(undefined, "203.0.113.1", trusted)).toBe("unknown");
  });

  test("nothing is trusted by default", () => {
    expect(resolveClientAddress("127.0.0.1", "203.0.113.1", parseTrustedProxies(undefined))).toBe(
      "127.0.0.1",
    );
  });
});

describe("PITWALL_TRUSTED_PROXIES", () => {
  test("parses IPs and CIDRs; a bad entry is a start-up error naming it", () => {
    expect(
      parseEnv({ PITWALL_TRUSTED_PROXIES: "10.0.0.0/8,::1" }).PITWALL_TRUSTED_PROXIES.entries,
    ).toEqual(["10.0.0.0/8", "::1"]);
    expect(() => parseEnv({ PITWALL_TRUSTED_PROXIES: "10.0.0.0/33" })).toThrow(
      /PITWALL_TRUSTED_PROXIES: '10.0.0.0\/33' is not an IP address or CIDR range/,
    );
    expect(() => parseEnv({ PITWALL_TRUSTED_PROXIES: "proxy.local" })).toThrow(/'proxy.local'/);
  });
});
