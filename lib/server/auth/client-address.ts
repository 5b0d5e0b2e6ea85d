import type { IncomingMessage } from "node:http";
import net from "node:net";

/**
 * Who is on the other end of a request, for per-address limits. The custom server resolves it
 * once per request from the socket's peer address and `X-Forwarded-For` — trusted only when the
 * peer is one of PITWALL_TRUSTED_PROXIES — and stamps it into {@link CLIENT_ADDRESS_HEADER},
 * overwriting whatever the client sent, because Next's route handlers never see the socket.
 */

/** Internal request header carrying the resolved client address to route handlers (and better-auth). */
export const CLIENT_ADDRESS_HEADER = "x-pitwall-client-address";

/** A parsed PITWALL_TRUSTED_PROXIES: the proxies whose X-Forwarded-For is believed. */
export interface TrustedProxies {
  /** The entries as configured (for logs and docs). */
  entries: string[];
  has(address: string): boolean;
}

/** Strips an IPv4-mapped IPv6 prefix (`::ffff:10.0.0.1` → `10.0.0.1`) and brackets. */
export function normalizeAddress(address: string): string {
  const a = address.trim().replace(/^\[(.*)\]$/, "$1");
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(a) ? a.slice(7) : a;
}

/**
 * Parses a comma-separated list of IP addresses and CIDR ranges (`10.0.0.0/8, 127.0.0.1, ::1`);
 * empty means no proxy is trusted.
 * @throws Error naming the first entry that is not an IPv4/IPv6 address or CIDR range.
 */
export function parseTrustedProxies(value: string | undefined): TrustedProxies {
  const list = new net.BlockList();
  const entries = (value ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [ip, bits, extra] = entry.split("/");
    const family = net.isIP(ip ?? "");
    const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
    if (
      !family ||
      extra !== undefined ||
      !Number.isInteger(prefix) ||
      prefix < 0 ||
      prefix > (family === 4 ? 32 : 128) ||
      (bits !== undefined && !/^\d+$/.test(bits))
    ) {
      throw new Error(
        `'${entry}' is not an IP address or CIDR range (e.g. 10.0.0.0/8, 127.0.0.1, ::1)`,
      );
    }
    list.addSubnet(ip!, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  return {
    entries,
    has: (address) => {
      const a = normalizeAddress(address);
      const family = net.isIP(a);
      return family !== 0 && list.check(a, family === 4 ? "ipv4" : "ipv6");
    },
  };
}

/**
 * The client's address: the socket peer, unless the peer is a trusted proxy — then the nearest
 * X-Forwarded-For entry (right to left) that is not itself a trusted proxy, so a client cannot
 * pick its own address by sending the header (proxies append, they do not replace). Empty or
 * garbled entries end the walk at the last trusted hop. "unknown" without a peer address.
 */
export function resolveClientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string {
  let address = peer ? normalizeAddress(peer) : "unknown";
  if (!peer || !trusted.has(address)) return address;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? ""))
    .split(",")
    .map(normalizeAddress);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (!net.isIP(hop)) break;
    address = hop;
    if (!trusted.has(hop)) break;
  }
  return address;
}

/** Stamps the resolved client address into the request's {@link CLIENT_ADDRESS_HEADER} (replacing any sent by the client). */
export function stampClientAddress(req: IncomingMessage, trusted: TrustedProxies): void {
  req.headers[CLIENT_ADDRESS_HEADER] = resolveClientAddress(
    req.socket.remoteAddress,
    req.headers["x-forwarded-for"],
    trusted,
  );
}
