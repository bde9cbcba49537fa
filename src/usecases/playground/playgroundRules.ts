// The dashboard playground's rules: which keys a member may run a preview and pay an unlock with, the preview form's
// text as the fields of POST /api/v1/search/preview, the rows picked for an unlock, what they cost before the member
// confirms, and a row as the page shows it. Pure: the use case beside it reads and writes.
import { Rejection } from "../../domain/rejection.js";
import { integrityWords } from "../../domain/integrity.js";
import { formatCredits } from "../../domain/money.js";
import type { CachedRow } from "../../domain/resultRow.js";
import type { MemberRole } from "../../domain/events.js";

/** The most rows a preview holds (the API's limit), so the most row checkboxes a form carries. */
export const PLAYGROUND_MAX_ROWS = 30;

/** The checkbox of the preview's n-th row (1-based): each row its own field, since a form sends a field once. */
export const rowField = (n: number): string => `row_${n}`;

interface PlaygroundKey {
  id: string;
  mode: "live" | "test";
  revoked: boolean;
  createdByMemberId: string | null;
}

/**
 * Whether a member may run previews with a key and pay unlocks with it: a key of their organization that is not
 * revoked; an owner any, a member the keys they created (as for an alert's key).
 */
export function mayUseKey(member: { memberId: string; role: MemberRole }, key: PlaygroundKey): boolean {
  return !key.revoked && (member.role === "owner" || key.createdByMemberId === member.memberId);
}

/** The preview form as a member typed it: every field text, kept to show again after a refusal. */
export interface PlaygroundForm {
  key: string;
  query: string;
  collections: string;
  filters?: string;
  min_relevance?: string;
  sort?: string;
  limit?: string;
}

/** The preview form's short fields the unlock forms carry along, so the form shows them again after an unlock. */
export const CARRIED_FIELDS = ["min_relevance", "sort", "limit"] as const;

const refuse = (field: string, message: string) => new Rejection("VALIDATION_ERROR", message, { field });

/**
 * The form's text as the body of POST /preview: collections comma-separated, filters as JSON text, numbers as
 * numbers; a field that is not what it should be is refused naming the fix (the preview's own schema checks the rest).
 */
export function previewFieldsOfForm(form: PlaygroundForm): Record<string, unknown> {
  const collections = form.collections
    .split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  if (collections.length === 0) throw refuse("collections", "collections: name at least one collection to search");
  const out: Record<string, unknown> = { collections, query: form.query };
  const filters = form.filters?.trim() ?? "";
  if (filters !== "") {
    try {
      out.filters = JSON.parse(filters);
    } catch {
      throw refuse("filters", 'filters: write them as JSON, as in the API, e.g. {"year": {"gte": 2020}}');
    }
  }
  const number = (field: "min_relevance" | "limit", text: string | undefined) => {
    const t = text?.trim() ?? "";
    if (t === "") return;
    const n = Number(t);
    if (!Number.isFinite(n)) throw refuse(field, `${field}: write a number (you wrote "${t.slice(0, 20)}")`);
    out[field] = n;
  };
  number("min_relevance", form.min_relevance);
  number("limit", form.limit);
  if (form.sort?.trim()) out.sort = form.sort.trim();
  return out;
}

/** The result ids ticked on a preview's rows (row_1 … row_30), each once, in the preview's order. */
export function selectedRowIds(form: Record<string, string | undefined>): string[] {
  const ids: string[] = [];
  for (let n = 1; n <= PLAYGROUND_MAX_ROWS; n++) {
    const id = form[rowField(n)]?.trim();
    if (id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** What unlocking the chosen rows costs: rows already unlocked are the key's and cost nothing again. */
export interface UnlockQuote {
  /** the rows that would be charged, in the preview's order */
  toBuy: string[];
  alreadyUnlocked: string[];
  costMicros: bigint;
}

export function unlockQuote(
  rows: readonly Pick<CachedRow, "id" | "costMicros">[],
  unlocked: ReadonlySet<string>,
  selected: readonly string[],
): UnlockQuote {
  const wanted = new Set(selected);
  const known = new Set(rows.map((r) => r.id));
  const unknown = selected.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new Rejection("VALIDATION_ERROR", `rows not in this preview: ${unknown.slice(0, 5).join(", ")}`);
  if (selected.length === 0) throw refuse("rows", "tick at least one row to unlock");
  const chosen = rows.filter((r) => wanted.has(r.id));
  const toBuy = chosen.filter((r) => !unlocked.has(r.id));
  return {
    toBuy: toBuy.map((r) => r.id),
    alreadyUnlocked: chosen.filter((r) => unlocked.has(r.id)).map((r) => r.id),
    costMicros: toBuy.reduce((sum, r) => sum + BigInt(r.costMicros), 0n),
  };
}

/**
 * The cost a member confirmed against the quote of the rows now: a negative one, or one below what they cost, would
 * unlock none and charge nothing, so it is refused with the cost to confirm.
 */
export function assertConfirmed(quote: Pick<UnlockQuote, "costMicros">, confirmedMicros: bigint): void {
  if (confirmedMicros < 0n) throw refuse("confirm", "confirm: the cost you confirmed cannot be negative");
  if (confirmedMicros >= quote.costMicros) return;
  const cost = formatCredits(quote.costMicros);
  throw new Rejection(
    "VALIDATION_ERROR",
    `confirm: the ticked rows cost ${cost} credits, more than the ${formatCredits(confirmedMicros)} confirmed; ` +
      `nothing was charged. Confirm ${cost} to unlock them`,
    { field: "confirm", cost, confirmed: formatCredits(confirmedMicros) },
  );
}

/** A row as a customer reads it in the playground: relevance, title, journal, year, integrity, cost, its text. */
interface PlaygroundRow {
  id: string;
  /** the id its work page opens with: the DOI, else pmid:…, else the document's id */
  workId: string;
  relevance: number | null;
  title: string;
  journal: string | null;
  year: string | null;
  /** the integrity status in a reader's words ("no notice", "not checked (no DOI)", "retracted") */
  integrity: string;
  costMicros: bigint;
  locked: boolean;
  /** the teaser while locked, the text once unlocked */
  text: string;
}

export function playgroundRowOf(row: CachedRow, unlocked: boolean): PlaygroundRow {
  const m = row.metadata;
  const date = typeof m.publication_date === "string" ? m.publication_date : null;
  const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);
  const pmid = text(m.pmid);
  return {
    id: row.id,
    workId: text(m.doi) ?? (pmid ? `pmid:${pmid}` : m.doc_id),
    relevance: row.relevance,
    title: typeof m.title === "string" && m.title.trim() ? m.title : "(untitled)",
    journal: typeof m.journal === "string" && m.journal ? m.journal : null,
    year: date && /^\d{4}/.test(date) ? date.slice(0, 4) : null,
    integrity: integrityWords(m.integrity as Parameters<typeof integrityWords>[0]),
    costMicros: BigInt(row.costMicros),
    locked: !unlocked,
    text: unlocked ? row.text : row.teaser,
  };
}

/** The collections the keys reach together, in the catalogue's order (a key without a scope reaches them all). */
export function reachableCollections(
  keys: readonly { collections: string[] | null }[],
  catalogue: readonly string[],
): string[] {
  if (keys.some((k) => k.collections === null)) return [...catalogue];
  const named = new Set(keys.flatMap((k) => k.collections ?? []).map((c) => c.toLowerCase()));
  return catalogue.filter((c) => named.has(c.toLowerCase()));
}

/**
 * The messages of a search's filter warnings, as the page shows them above its rows: an empty table with no word of
 * why (a field the collection never carries, a journal spelled otherwise) reads as "nothing exists".
 */
export function warningMessages(warnings: readonly unknown[] | undefined): string[] {
  return (warnings ?? []).flatMap((w) => {
    const message = typeof w === "object" && w !== null ? (w as { message?: unknown }).message : undefined;
    return typeof message === "string" && message !== "" ? [message] : [];
  });
}
