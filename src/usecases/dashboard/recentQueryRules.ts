// The recent queries' filter: the form's text (key, collection, a date range, a cost range) read into a filter, each
// bad value refused naming its field and the fix, and whether a listed search or preview passes it. Pure: the reads
// in recentQueries.ts apply it.
import { Rejection } from "../../domain/rejection.js";
import { parseCredits } from "../../domain/money.js";

/** The filter form as the member typed it: every field text, kept to show again after a refusal. */
export interface QueryFilterForm {
  key?: string;
  collection?: string;
  from?: string;
  to?: string;
  minCost?: string;
  maxCost?: string;
}

export interface QueryFilter {
  keyId: string | null;
  /** lower-cased */
  collection: string | null;
  /** the first instant counted and the first one past the range (the day after `to`), ISO */
  fromTime: string | null;
  untilTime: string | null;
  minCostMicros: bigint | null;
  maxCostMicros: bigint | null;
}

export const NO_FILTER: QueryFilter = {
  keyId: null,
  collection: null,
  fromTime: null,
  untilTime: null,
  minCostMicros: null,
  maxCostMicros: null,
};

const refuse = (field: string, message: string) => new Rejection("VALIDATION_ERROR", message, { field });
const shown = (text: string) => `"${text.slice(0, 30)}"`;

/** A day as YYYY-MM-DD (a real calendar day), as midnight UTC. */
function dayOf(field: "from" | "to", text: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const day = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!day || day.toISOString().slice(0, 10) !== text)
    throw refuse(field, `${field}: write a day as YYYY-MM-DD, e.g. 2031-05-06 (you wrote ${shown(text)})`);
  return day;
}

function costOf(field: "minCost" | "maxCost", text: string): bigint {
  const micros = parseCredits(text);
  if (micros === null || micros < 0n)
    throw refuse(field, `${field}: write an amount in credits, e.g. 0.05 (you wrote ${shown(text)})`);
  return micros;
}

/** The form as a filter; an empty field filters nothing. */
export function queryFilterOf(form: QueryFilterForm): QueryFilter {
  const text = (v: string | undefined) => v?.trim() ?? "";
  const from = text(form.from) ? dayOf("from", text(form.from)) : null;
  const to = text(form.to) ? dayOf("to", text(form.to)) : null;
  if (from && to && from > to) throw refuse("to", "to: the range ends before it starts; make `to` the later day");
  const minCost = text(form.minCost) ? costOf("minCost", text(form.minCost)) : null;
  const maxCost = text(form.maxCost) ? costOf("maxCost", text(form.maxCost)) : null;
  if (minCost !== null && maxCost !== null && minCost > maxCost)
    throw refuse("maxCost", "maxCost: the most is below the least; make maxCost at least minCost");
  return {
    keyId: text(form.key) || null,
    collection: text(form.collection).toLowerCase() || null,
    fromTime: from?.toISOString() ?? null,
    untilTime: to ? new Date(to.getTime() + 86_400_000).toISOString() : null,
    minCostMicros: minCost,
    maxCostMicros: maxCost,
  };
}

/** Whether the filter is empty (the page then says "the last n searches" rather than "n matching"). */
export const isNoFilter = (f: QueryFilter): boolean => Object.values(f).every((v) => v === null || v === undefined);

/** Whether a listed query passes the filter. */
export function passesQueryFilter(
  q: { keyId: string; collections: readonly string[]; time: string; costMicros: bigint },
  f: QueryFilter,
): boolean {
  const t = Date.parse(q.time);
  return (
    (f.keyId === null || q.keyId === f.keyId) &&
    (f.collection === null || q.collections.some((c) => c.toLowerCase() === f.collection)) &&
    (f.fromTime === null || t >= Date.parse(f.fromTime)) &&
    (f.untilTime === null || t < Date.parse(f.untilTime)) &&
    (f.minCostMicros === null || q.costMicros >= f.minCostMicros) &&
    (f.maxCostMicros === null || q.costMicros <= f.maxCostMicros)
  );
}
