// Authenticates API keys (Bearer or X-API-Key) and the operator token; failures are 401s in the spec's envelope.
import { timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { ApiError } from './errors.js';
import { hashApiKey, isWellFormedKey } from '../auth/apiKeys.js';
import type { Accounts } from '../billing/accounts.js';
import type { RequestState } from './requestContext.js';
import { clientAddress, refuseTooManyRequests, type IpLimiter } from './ipLimiter.js';

/**
 * The API key a request presents: `Authorization: Bearer <key>`, else `X-API-Key: <key>` (the spec's alternative, also
 * beside an Authorization header of another scheme, such as a proxy's Basic credentials), else a bare Authorization
 * value (read as a key: malformed unless it is one).
 */
function presentedKey(ctx: Context): string | undefined {
  const auth = ctx.get('Authorization').trim();
  const bearer = /^Bearer\s+(.+)$/i.exec(auth);
  if (bearer) return bearer[1]!.trim();
  const header = ctx.get('X-API-Key').trim();
  if (header) return header;
  return auth || undefined;
}

export function apiKeyAuthentication(accounts: Accounts) {
  return async (ctx: Context, next: Next) => {
    const key = presentedKey(ctx);
    if (!key) throw new ApiError(401, 'UNAUTHORIZED', 'missing API key: send Authorization: Bearer <key> or X-API-Key');
    if (!isWellFormedKey(key)) throw new ApiError(401, 'INVALID_API_KEY', 'API key is malformed');
    const found = await accounts.authenticate(hashApiKey(key));
    if (!found) throw new ApiError(401, 'INVALID_API_KEY', 'API key is not recognised');
    const { key: record, org } = found;
    if (record.revoked) throw new ApiError(401, 'API_KEY_REVOKED', 'API key has been revoked');
    if (!org) throw new ApiError(401, 'INVALID_API_KEY', 'API key is not recognised');
    (ctx.state as RequestState).auth = { key: record, org, billingMode: record.mode === 'test' ? 'sandbox' : org.billingMode };
    await next();
  };
}

export interface OperatorLimiters {
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
  const m = /^Bearer\s+(.+)$/i.exec(ctx.get('Authorization').trim());
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
    if (!/^Bearer\s+\S/i.test(ctx.get('Authorization').trim())) throw new ApiError(401, 'UNAUTHORIZED', 'missing operator token: send Authorization: Bearer $ADMIN_TOKEN');
    throw new ApiError(401, 'UNAUTHORIZED', 'operator token does not match');
  };
}
