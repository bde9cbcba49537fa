// Authenticates API keys (Bearer or X-API-Key) and the operator token; failures are 401s in the spec's envelope.
import { timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { ApiError } from './errors.js';
import { hashApiKey, isWellFormedKey } from '../auth/apiKeys.js';
import type { Accounts } from '../billing/accounts.js';
import type { RequestState } from './requestContext.js';

function presentedKey(ctx: Context): string | undefined {
  const auth = ctx.get('Authorization');
  if (auth) {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    return m ? m[1]!.trim() : auth.trim();
  }
  const header = ctx.get('X-API-Key');
  return header ? header.trim() : undefined;
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

export function operatorAuthentication(adminToken: string) {
  const expected = Buffer.from(adminToken);
  return async (ctx: Context, next: Next) => {
    const m = /^Bearer\s+(.+)$/i.exec(ctx.get('Authorization').trim());
    if (!m) throw new ApiError(401, 'UNAUTHORIZED', 'missing operator token: send Authorization: Bearer $ADMIN_TOKEN');
    const given = Buffer.from(m[1]!.trim());
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ApiError(401, 'UNAUTHORIZED', 'operator token does not match');
    await next();
  };
}
