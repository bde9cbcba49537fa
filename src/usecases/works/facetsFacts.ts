// The fact of a works facets request: free, and one query of the daily and monthly quota. Pure: decide(command, state)
// -> events; the use case (workFacets.ts) reads the state under the append lock, so concurrent requests cannot pass
// the quota together.
import type { DomainEvent, OrgLimits } from "../../domain/events.js";
import { assertQuotaLeft, type QueryUsage } from "../../domain/queryQuota.js";

/** The command carries what the event records, field for field. */
type FacetsCommand = { type: "RecordWorksFacets" } & Extract<DomainEvent, { type: "WorksFacetsCounted" }>["data"];

/** The organization's limits and today's and this month's queries, read when the command is decided. */
interface FacetsQuotaState {
  limits: OrgLimits;
  usage: QueryUsage;
}

/** 429 QUOTA_EXCEEDED when the quota has no query left; else the event that counts one. */
export function decideFacets(command: FacetsCommand, state: FacetsQuotaState, now: Date): DomainEvent[] {
  switch (command.type) {
    case "RecordWorksFacets": {
      assertQuotaLeft(state.limits, state.usage, now);
      const { type: _, ...data } = command;
      return [{ type: "WorksFacetsCounted", data }];
    }
    default: {
      const unhandled: never = command.type;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
}
