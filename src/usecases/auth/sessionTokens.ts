// Dashboard session and invite tokens: 256 random bits each, kept server-side only as their SHA-256; the CSRF token of
// a session is an HMAC of its secret, so it needs no storage and cannot be computed without the cookie.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const newSecretToken = (): string => randomBytes(32).toString("base64url");
export const tokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** A token as newSecretToken writes it; anything else is refused before a lookup. */
export const isWellFormedToken = (token: string): boolean => TOKEN.test(token);

/** The synchronizer token every state-changing request of the session must carry (form field or X-CSRF-Token). */
export const csrfTokenOf = (sessionToken: string): string =>
  createHmac("sha256", sessionToken).update("litsearch dashboard csrf v1").digest("base64url");

/** Constant-time equality of two presented secrets (different lengths are simply unequal). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
