// The dashboard playground: a signed-in member previews and unlocks as one of their organization's keys would, through
// the very use cases of POST /api/v1/search/preview and /unlock (the key's scope, caps and the organization's limits,
// the same ledger), without the session ever holding the key's secret. The unlock's charge names the member as actor.
import { Rejection } from "../../domain/rejection.js";
import type { Principal } from "../../domain/member.js";
import { authContextOf, type AuthContext } from "../auth/context.js";
import type { Accounts } from "../accounts/accounts.js";
import type { SearchRequestInput } from "../search/pipeline.js";
import type { ListRequest, SearchService } from "../search/searchService.js";
import type { Unlock, UnlockResult } from "../unlock/unlock.js";
import type { KeyRow } from "../dashboard/consoleData.js";
import { mayUseKey, unlockQuote, type UnlockQuote } from "./playgroundRules.js";
import type { CachedRow } from "../../domain/resultRow.js";

type Member = Extract<Principal, { kind: "member" }>;

interface PlaygroundDeps {
  accounts: Pick<Accounts, "getKey" | "getOrganization">;
  /** the organization's keys with who created each */
  keysOf: (orgId: string) => Promise<KeyRow[]>;
  search: Pick<SearchService, "preview" | "refetch">;
  unlock: Pick<Unlock, "unlock">;
}

/** A preview's rows with those unlocked under it, as the page shows them. */
export interface PlaygroundResult {
  queryId: string;
  keyId: string;
  rows: CachedRow[];
  unlocked: Set<string>;
  /** what the preview asked: its query and collections, to show in the form again */
  asked: { query: string; collections: string[] };
}

export function createPlayground(deps: PlaygroundDeps) {
  /** The keys the member may use here: their organization's, not revoked; an owner any, a member their own. */
  const keysFor = async (member: Member): Promise<KeyRow[]> =>
    (await deps.keysOf(member.orgId)).filter((k) => mayUseKey(member, k));

  /**
   * The key as an API call of it would be authenticated, when the member may use it; another organization's key, a
   * revoked one or one the member may not use are refused alike (nothing tells them apart).
   */
  async function callerOf(member: Member, keyId: string): Promise<AuthContext> {
    const usable = (await keysFor(member)).some((k) => k.id === keyId);
    const [key, org] = await Promise.all([deps.accounts.getKey(keyId), deps.accounts.getOrganization(member.orgId)]);
    if (!usable || !key || !org || key.orgId !== member.orgId || key.revoked)
      throw new Rejection(
        "VALIDATION_ERROR",
        "key: choose one of the keys listed (owners may use any key of the organization, members the keys they " +
          "created)",
        { field: "key" },
      );
    return authContextOf(key, org);
  }

  return {
    keysFor,

    /** A preview as POST /preview runs it for the key: free, its hourly limit, the key's collections. */
    async preview(
      member: Member,
      keyId: string,
      input: SearchRequestInput,
      list: ListRequest,
    ): Promise<PlaygroundResult> {
      const auth = await callerOf(member, keyId);
      const outcome = await deps.search.preview(auth, input, undefined, list);
      const asked = { query: input.query, collections: input.collections };
      return { queryId: outcome.queryId, keyId, rows: outcome.rows, unlocked: outcome.unlocked, asked };
    },

    /** The key's preview again (a preview of another key or organization is not found), with its rows' state. */
    async load(member: Member, keyId: string, queryId: string): Promise<PlaygroundResult> {
      const auth = await callerOf(member, keyId);
      const { record, unlocked } = await deps.search.refetch(auth, queryId, null);
      if (record.kind !== "preview")
        throw new Rejection("VALIDATION_ERROR", `query ${queryId} is not a preview; only previews can be unlocked`);
      const asked = { query: record.payload.query, collections: record.payload.collections };
      return { queryId, keyId, rows: record.payload.rows, unlocked, asked };
    },

    /** What unlocking the chosen rows of the key's preview would charge, before the member confirms. */
    async quote(
      member: Member,
      keyId: string,
      queryId: string,
      selected: string[],
    ): Promise<{ result: PlaygroundResult; quote: UnlockQuote }> {
      const result = await this.load(member, keyId, queryId);
      return { result, quote: unlockQuote(result.rows, result.unlocked, selected) };
    },

    /**
     * The unlock of POST /unlock for the key: the same workflow and ledger, the key's cap and the organization's
     * balance and limits; `maxCostMicros` is the quote the member confirmed, so a price that rose since charges nothing
     * more than they saw.
     */
    async unlock(
      member: Member,
      keyId: string,
      queryId: string,
      selected: string[],
      maxCostMicros: bigint,
    ): Promise<{ outcome: UnlockResult; result: PlaygroundResult }> {
      // the key's own preview, or 404 before anything runs
      const before = await this.load(member, keyId, queryId);
      if (selected.length === 0)
        throw new Rejection("VALIDATION_ERROR", "tick at least one row to unlock", { field: "rows" });
      const outcome = await deps.unlock.unlock(await callerOf(member, keyId), {
        queryId,
        resultIds: selected,
        figures: null,
        maxCostMicros,
        actor: { kind: "member", id: member.memberId },
      });
      return { outcome, result: { ...before, rows: outcome.rows, unlocked: outcome.unlocked } };
    },
  };
}

export type Playground = ReturnType<typeof createPlayground>;
