/**
 * The credentials of a sign-in request, read from whatever encoding it came in. better-auth
 * accepts JSON, form-urlencoded and multipart bodies; the limiter must count every attempt that
 * reaches a password check, so it reads the body itself and hands better-auth the same fields
 * re-encoded as JSON: anything it cannot read never reaches better-auth.
 */

/** A sign-in body: `email` and `password` (strings), plus better-auth's other fields as sent. */
export type SignInFields = { email: string; password: string } & Record<string, unknown>;

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json/i;

/**
 * Parses `body` (the raw body as text) by `contentType` the way better-auth does: JSON (`application/json`,
 * `…+json`), `application/x-www-form-urlencoded`, `multipart/form-data`. Returns null when the body
 * is in another encoding, malformed, or lacks a string `email` or `password`.
 */
export async function readSignInFields(
  contentType: string,
  body: string,
): Promise<SignInFields | null> {
  const type = contentType.toLowerCase();
  let fields: unknown;
  try {
    if (JSON_TYPE.test(type)) fields = JSON.parse(body);
    else if (type.includes("application/x-www-form-urlencoded"))
      fields = Object.fromEntries(new URLSearchParams(body));
    else if (type.includes("multipart/form-data")) {
      const form = await new Response(body, {
        headers: { "content-type": contentType },
      }).formData();
      fields = Object.fromEntries(
        [...form.entries()].map(([k, v]) => [k, typeof v === "string" ? v : null]),
      );
    } else return null;
  } catch {
    return null;
  }
  if (!fields || typeof fields !== "object" || Array.isArray(fields)) return null;
  const f = fields as Record<string, unknown>;
  return typeof f.email === "string" && typeof f.password === "string" ? (f as SignInFields) : null;
}
