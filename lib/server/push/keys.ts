import { randomBytes } from "node:crypto";
import type pg from "pg";
import webpush from "web-push";
import { z } from "zod";

import { namedSecret } from "@/lib/server/repositories/push";

/**
 * The server's Web Push keys, generated at first use and kept in ServerSecret so every app
 * instance signs with the same VAPID key (a browser's subscription is bound to the public key it
 * subscribed with) and checks the same action tokens. Read once per process.
 */

/** A VAPID key pair: P-256, base64url (public: 65-byte uncompressed point; private: 32 bytes). */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const vapidSchema = z.strictObject({
  publicKey: z.string().min(80),
  privateKey: z.string().min(40),
});

let vapid: Promise<VapidKeys> | null = null;
let actionSecret: Promise<string> | null = null;

/** The VAPID key pair (ServerSecret "vapid", JSON), made on first use. @throws on a corrupt stored value. */
export function vapidKeys(pool: pg.Pool): Promise<VapidKeys> {
  vapid ??= namedSecret(pool, "vapid", () => JSON.stringify(webpush.generateVAPIDKeys()))
    .then((value) => vapidSchema.parse(JSON.parse(value)))
    .catch((err: unknown) => {
      vapid = null;
      throw err;
    });
  return vapid;
}

/** The key that signs action tokens (ServerSecret "push-action", 32 random bytes), made on first use. */
export function actionTokenSecret(pool: pg.Pool): Promise<string> {
  actionSecret ??= namedSecret(pool, "push-action", () =>
    randomBytes(32).toString("base64url"),
  ).catch((err: unknown) => {
    actionSecret = null;
    throw err;
  });
  return actionSecret;
}

/**
 * The VAPID `sub` claim: PITWALL_PUBLIC_URL when it is https (push services want a way to reach
 * the sender), else a mailto: address that names no one.
 */
export function vapidSubject(publicUrl: string | undefined): string {
  return publicUrl?.startsWith("https://") ? publicUrl : "mailto:pitwall@localhost.invalid";
}
