// API key material: generation, the stored hash, and the shape check done before any lookup.
import { createHash, randomBytes } from "node:crypto";
import type { KeyMode } from "../../domain/events.js";

const KEY_PATTERN = /^sk_(live|test)_[A-Za-z0-9]{32,64}$/;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

export function generateApiKey(mode: KeyMode): string {
  return `sk_${mode}_${randomToken(40)}`;
}

export const hashApiKey = (key: string) => createHash("sha256").update(key).digest("hex");
export const keyPrefixOf = (key: string) => key.slice(0, 12);
export const isWellFormedKey = (key: string) => KEY_PATTERN.test(key);
export const newId = (prefix: string) => `${prefix}_${randomBytes(10).toString("hex")}`;
