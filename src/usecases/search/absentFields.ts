// filter_field_absent: a filter on a field no document of a searched collection carries matches nothing there.
// SciFact's records have no dates or journals, so `publication_date >= 2015` on it answered an empty list that read as
// "nothing since 2015 matches"; the warning tells that apart from a true empty answer. Asked of the engine only for a
// collection that gave the search no candidate at all, and remembered a few minutes per index and field.
import type { FilterNode } from "../../filters/ast.js";
import { fieldSpec } from "../../filters/fields.js";
import type { SearchEngine } from "../../retrieval/port.js";

/** How long an index's answer on a field is kept: an ingestion that adds the field shows within this. */
const REMEMBERED_MS = 5 * 60_000;

/**
 * The fields asked about: the indexed ones (an engine answers for an unindexed field only by scanning), less the DOI,
 * which has a warning of its own where it matches nothing (doi_not_in_collection).
 */
const asksAbout = (field: string) =>
  field !== "doi" && (fieldSpec(field)?.group === "indexed" || fieldSpec(field)?.group === "editorial");

interface AbsentFieldWarning {
  code: "filter_field_absent";
  field: string;
  collection: string;
  message: string;
}

/**
 * The fields a filter requires a document to carry: those of its conditions outside any `not` (a negated condition on
 * a missing field excludes nothing), each once in the order first met.
 */
function fieldsRequired(node: FilterNode | "skip" | undefined): string[] {
  const fields = new Set<string>();
  const walk = (n: FilterNode): void => {
    if (n.kind === "and" || n.kind === "or") n.children.forEach(walk);
    else if (n.kind === "eq" || n.kind === "in" || n.kind === "range" || n.kind === "exists") fields.add(n.field);
  };
  if (node && node !== "skip") walk(node);
  return [...fields];
}

/** The warning's words: the collection, the meta-collection it was searched under, and what to do instead. */
function absentFieldMessage(field: string, collection: string, requested: string): string {
  const where = requested === collection ? collection : `${collection} (searched as part of ${requested})`;
  return (
    `no document of ${where} carries ${field}, so the filter on it matched nothing there: its source records have no ` +
    `such field. Filter by a field the collection carries, or search a collection that has ${field}.`
  );
}

type Counter = Pick<SearchEngine, "countChunks">;

const remembered = new WeakMap<Counter, Map<string, { absent: boolean; at: number }>>();

/** Whether no chunk of the index carries the field, as the engine answers (remembered REMEMBERED_MS). */
async function fieldAbsent(engine: Counter, index: string, field: string, now: number): Promise<boolean> {
  let known = remembered.get(engine);
  if (!known) remembered.set(engine, (known = new Map()));
  const key = `${index}\u0000${field}`;
  const hit = known.get(key);
  if (hit && now - hit.at < REMEMBERED_MS) return hit.absent;
  const absent = (await engine.countChunks(index, { kind: "exists", field })) === 0;
  known.set(key, { absent, at: now });
  return absent;
}

/**
 * One warning per searched collection without a candidate and per field its filter requires that none of its
 * documents carries. `answered`: the collections that gave the search at least one candidate.
 */
export async function absentFieldWarnings(
  engine: Counter,
  lists: readonly { collection: { name: string }; requested: { name: string }; filter?: FilterNode | "skip" }[],
  answered: ReadonlySet<string>,
  now = Date.now(),
): Promise<AbsentFieldWarning[]> {
  const asked = new Map<string, { field: string; collection: string; requested: string }>();
  for (const l of lists) {
    if (answered.has(l.collection.name)) continue;
    for (const field of fieldsRequired(l.filter).filter(asksAbout)) {
      const key = `${l.collection.name}\u0000${field}`;
      if (!asked.has(key)) asked.set(key, { field, collection: l.collection.name, requested: l.requested.name });
    }
  }
  // best effort: an engine that cannot answer leaves the warning out, never the search
  const absent = await Promise.all(
    [...asked.values()].map((a) => fieldAbsent(engine, a.collection, a.field, now).catch(() => false)),
  );
  return [...asked.values()]
    .filter((_, i) => absent[i])
    .map((a) => ({
      code: "filter_field_absent" as const,
      field: a.field,
      collection: a.collection,
      message: absentFieldMessage(a.field, a.collection, a.requested),
    }));
}
