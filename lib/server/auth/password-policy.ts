import { dictionary } from "@zxcvbn-ts/language-common";

/**
 * The password policy, applied wherever a password is set: first-visit setup, an admin creating
 * a person or setting a new password (API and `pitwall user create|set-password`), and a person
 * changing their own (better-auth's /change-password). Sign-in does not apply it, so passwords set
 * before the policy keep working until they are changed.
 *
 * Rules (NIST SP 800-63B 5.1.1.2 / OWASP ASVS 2.1): at least 12 characters, at most 256, not only
 * whitespace or one repeated character, and not one of the ~30,000 most common passwords of
 * zxcvbn-ts's common-password list (@zxcvbn-ts/language-common), compared case-insensitively.
 */

/** Fewest characters a new password may have. */
export const MIN_PASSWORD_LENGTH = 12;
/** Most characters a password may have (scrypt cost stays bounded). */
export const MAX_PASSWORD_LENGTH = 256;

let common: Set<string> | null = null;

/** The common-password list, loaded on first use (lower-case). */
function commonPasswords(): Set<string> {
  common ??= new Set(dictionary["passwords-common"].map((p) => p.toLowerCase()));
  return common;
}

/** Why `password` may not be set, as a sentence for the person; null when it may. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH)
    return `at least ${MIN_PASSWORD_LENGTH} characters (a few words make a good one)`;
  if (length > MAX_PASSWORD_LENGTH) return `at most ${MAX_PASSWORD_LENGTH} characters`;
  if (password.trim() === "") return "not only spaces";
  if (new Set(password).size === 1) return "not one character repeated";
  if (commonPasswords().has(password.toLowerCase()))
    return "this is one of the most common passwords; choose another";
  return null;
}
