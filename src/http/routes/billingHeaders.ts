// The billing headers of search responses (X-Tokens-Used, X-Query-Cost, X-Billing-Mode, X-Credits-Remaining), set in
// one place.
import type { Context } from "koa";
import type { AuthContext } from "../../usecases/auth/context.js";
import type { BillingOutcome, SearchService } from "../../usecases/search/searchService.js";
import { formatCredits } from "../../domain/money.js";
import { keyAuth } from "./keyRouteContext.js";

/** All four headers; none when billing is off for the organization; no balance when the organization hides it. */
export function setBillingHeaders(ctx: Context, auth: AuthContext, billing: BillingOutcome): void {
  if (!auth.org.billingEnabled) return;
  ctx.set("X-Tokens-Used", String(billing.tokens));
  ctx.set("X-Query-Cost", formatCredits(billing.costMicros, 6));
  ctx.set("X-Billing-Mode", billing.mode);
  if (!auth.org.hideBalance) ctx.set("X-Credits-Remaining", formatCredits(billing.balanceMicros, 6));
}

/**
 * A free read for an API key (a work, an author, a list of either, facets): the key authorizes it first, `read`
 * answers it, and the response carries the billing headers of a call that charged nothing.
 */
export async function answerFree(
  ctx: Context,
  search: Pick<SearchService, "zeroBilling">,
  read: (auth: AuthContext) => Promise<unknown>,
): Promise<void> {
  const a = keyAuth(ctx);
  ctx.body = await read(a);
  setBillingHeaders(ctx, a, search.zeroBilling(a));
}
