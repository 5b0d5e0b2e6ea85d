import { createDecipheriv, createECDH, createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for a browser and its push service (RFC 8030), for tests of Web Push: an HTTP
 * server on 127.0.0.1 that records every push it receives and answers each endpoint with the
 * status set for it (201, or 410 "gone"); and browser-side keys that decrypt a push's aes128gcm
 * body exactly as a browser would (RFC 8291 key derivation over RFC 8188 encoding), so a test
 * reads the very payload the server encrypted.
 */

/** One request the push service received. */
export interface ReceivedPush {
  endpoint: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A running local push service. */
export interface PushService {
  /** `http://127.0.0.1:<port>/push/<name>`, answered with `status` (default 201). */
  endpoint(name: string, status?: number): string;
  received: ReceivedPush[];
  close(): Promise<void>;
}

/** Starts a local push service on a free port. */
export async function startPushService(): Promise<PushService> {
  const statuses = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const endpoint = `${base}${req.url ?? ""}`;
      received.push({ endpoint, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(statuses.get(endpoint) ?? 201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint(name, status = 201) {
      const url = `${base}/push/${name}`;
      statuses.set(url, status);
      return url;
    },
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A browser's subscription keys (P-256 key pair, 16-byte auth secret) and the decryption of its pushes. */
export interface BrowserKeys {
  /** As `PushSubscription.toJSON().keys`: base64url. */
  keys: { p256dh: string; auth: string };
  /**
   * Decrypts an aes128gcm push body (one record) to its plaintext.
   * @throws Error when the header, keys or authentication tag do not fit.
   */
  decrypt(body: Buffer): Buffer;
}

function hmac(key: Buffer, ...data: Buffer[]): Buffer {
  const h = createHmac("sha256", key);
  for (const d of data) h.update(d);
  return h.digest();
}

/** Generates a browser's keys with node:crypto ECDH. */
export function newBrowserKeys(): BrowserKeys {
  const ecdh = createECDH("prime256v1");
  const uaPublic = ecdh.generateKeys();
  const authSecret = randomBytes(16);
  return {
    keys: { p256dh: uaPublic.toString("base64url"), auth: authSecret.toString("base64url") },
    decrypt(body) {
      // RFC 8188 header: salt (16) | record size (4) | key id length (1) | key id (the sender's key).
      const salt = body.subarray(0, 16);
      const idLen = body[20]!;
      if (idLen !== 65) throw new Error(`key id of ${idLen} bytes; aes128gcm web push uses 65`);
      const asPublic = body.subarray(21, 21 + idLen);
      const ciphertext = body.subarray(21 + idLen);
      // RFC 8291 section 3.4: IKM from the ECDH secret and the auth secret.
      const ecdhSecret = ecdh.computeSecret(asPublic);
      const prkKey = hmac(authSecret, ecdhSecret);
      const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), uaPublic, asPublic]);
      const ikm = hmac(prkKey, keyInfo, Buffer.from([1]));
      // RFC 8188 section 2.2 / 2.3: content key and nonce.
      const prk = hmac(salt, ikm);
      const cek = hmac(
        prk,
        Buffer.from("Content-Encoding: aes128gcm\0"),
        Buffer.from([1]),
      ).subarray(0, 16);
      const nonce = hmac(prk, Buffer.from("Content-Encoding: nonce\0"), Buffer.from([1])).subarray(
        0,
        12,
      );
      const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
      decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
      const padded = Buffer.concat([
        decipher.update(ciphertext.subarray(0, ciphertext.length - 16)),
        decipher.final(),
      ]);
      // The last record ends with the delimiter 0x02, then zero padding.
      let end = padded.length - 1;
      while (end >= 0 && padded[end] === 0) end--;
      if (padded[end] !== 2) throw new Error("no last-record delimiter (0x02) in the plaintext");
      return padded.subarray(0, end);
    },
  };
}
