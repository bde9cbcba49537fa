// Authenticates API keys (Bearer or X-API-Key) and the operator token; failures are 401s in the spec's envelope.
import { timingSafeEqual } from "node:crypto";
import type { Context, Next } from "koa";
import { ApiError } from "../wire/errors.js";
import { hashApiKey, isWellFormedKey } from "../usecases/accounts/apiKeys.js";
import type { Authenticate } from "../usecases/auth/authenticate.js";
import { authContextOf } from "../usecases/auth/context.js";
import type { RequestState } from "./requestContext.js";
import { clientAddress, refuseTooManyRequests, type IpLimiter } from "./ipLimiter.js";

/**
 * The headers a key may come in, as the client wrote them (repeats included: Node keeps only the first Authorization).
 */
type KeyHeaders = { authorization: string[]; apiKey: string[] };

function keyHeadersOf(rawHeaders: readonly string[]): KeyHeaders {
  const found: KeyHeaders = { authorization: [], apiKey: [] };
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (name === "authorization") found.authorization.push(rawHeaders[i + 1]!);
    else if (name === "x-api-key") found.apiKey.push(rawHeaders[i + 1]!);
  }
  return found;
}

/**
 * The API key a request presents, from every Authorization and X-API-Key header in its raw headers (name, value, …):
 * - `Authorization: Bearer <key>`: the scheme in any case (RFC 9110), any spaces or tabs around and between;
 * - `X-API-Key: <key>`, surrounding whitespace ignored;
 * - `Authorization: <key>` with no scheme (a single token): read as the key, malformed unless it is one;
 * - `Authorization` with another scheme (a proxy's Basic credentials) carries no key and is ignored beside a key.
 * The same key more than once is that key; two different keys are a conflict (`conflict` names where they came
 * from, never the keys), refused before anything is read or charged.
 */
export function presentedKey(rawHeaders: readonly string[]): { key?: string; otherScheme?: string; conflict?: string } {
  const headers = keyHeadersOf(rawHeaders);
  const keys: { key: string; from: string }[] = [];
  let otherScheme: string | undefined;
  for (const value of headers.authorization) {
    const v = value.trim();
    if (!v) continue;
    const scheme = /^(\S+)[ \t]+(\S.*)$/.exec(v);
    if (!scheme) keys.push({ key: v, from: "Authorization" });
    else if (scheme[1]!.toLowerCase() === "bearer") keys.push({ key: scheme[2]!.trim(), from: "Authorization" });
    else otherScheme ??= v;
  }
  for (const value of headers.apiKey) if (value.trim()) keys.push({ key: value.trim(), from: "X-API-Key" });
  const distinct = [...new Set(keys.map((k) => k.key))];
  if (distinct.length > 1) {
    const where = keys.map((k) => k.from);
    const named = where.every((w) => w === "Authorization")
      ? `${where.length} Authorization headers`
      : where.every((w) => w === "X-API-Key")
        ? `${where.length} X-API-Key headers`
        : "Authorization and X-API-Key";
    return {
      conflict:
        `the request carries ${distinct.length} different API keys (${named}); send one key, in Authorization: ` +
        "Bearer <key> or X-API-Key",
    };
  }
  return distinct.length === 1 ? { key: distinct[0] } : { otherScheme };
}

export function apiKeyAuthentication(authenticate: Authenticate) {
  return async (ctx: Context, next: Next) => {
    const presented = presentedKey(ctx.req.rawHeaders);
    if (presented.conflict) throw new ApiError(401, "INVALID_API_KEY", presented.conflict);
    // an Authorization of another scheme alone is read as before: as the key, malformed unless it is one
    const key = presented.key ?? presented.otherScheme;
    if (!key) throw new ApiError(401, "UNAUTHORIZED", "missing API key: send Authorization: Bearer <key> or X-API-Key");
    if (!isWellFormedKey(key)) throw new ApiError(401, "INVALID_API_KEY", "API key is malformed");
    const found = await authenticate(hashApiKey(key));
    if (!found) throw new ApiError(401, "INVALID_API_KEY", "API key is not recognised");
    const { key: record, org } = found;
    if (record.revoked) throw new ApiError(401, "API_KEY_REVOKED", "API key has been revoked");
    if (!org) throw new ApiError(401, "INVALID_API_KEY", "API key is not recognised");
    (ctx.state as RequestState).auth = authContextOf(record, org);
    await next();
  };
}

interface OperatorLimiters {
  /** every operator request, per address: a generous cap */
  requests: IpLimiter;
  /** operator requests without the right token, per address */
  failedAttempts: IpLimiter;
}

/** Whether a presented operator token is the operator's, in constant time. */
export function operatorTokenCheck(adminToken: string): (presented: string | undefined) => boolean {
  const expected = Buffer.from(adminToken);
  return (presented) => {
    const given = presented === undefined ? undefined : Buffer.from(presented);
    return given !== undefined && given.length === expected.length && timingSafeEqual(given, expected);
  };
}

/** The token of an `Authorization: Bearer ...` header, if the request sent one. */
export function bearerToken(ctx: Context): string | undefined {
  const m = /^Bearer\s+(.+)$/i.exec(ctx.get("Authorization").trim());
  return m ? m[1]!.trim() : undefined;
}

/** The operator token check. Failed attempts are throttled per address; the right token is never refused by that
 *  counter (the operator is not locked out by someone guessing), only by the generous cap on all requests. */
export function operatorAuthentication(adminToken: string, limiters: OperatorLimiters) {
  const isOperatorToken = operatorTokenCheck(adminToken);
  const tokenMatches = (ctx: Context) => isOperatorToken(bearerToken(ctx));
  return async (ctx: Context, next: Next) => {
    const address = clientAddress(ctx);
    const capWait = limiters.requests.take(address);
    if (capWait) return refuseTooManyRequests(ctx, capWait);
    if (tokenMatches(ctx)) return next();
    const failWait = limiters.failedAttempts.take(address);
    if (failWait) return refuseTooManyRequests(ctx, failWait);
    if (!/^Bearer\s+\S/i.test(ctx.get("Authorization").trim()))
      throw new ApiError(401, "UNAUTHORIZED", "missing operator token: send Authorization: Bearer $ADMIN_TOKEN");
    throw new ApiError(401, "UNAUTHORIZED", "operator token does not match");
  };
}
