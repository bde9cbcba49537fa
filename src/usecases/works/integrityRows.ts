// metadata.integrity on every row a client is given (search, preview, unlock, re-fetch, assisted, alert deliveries), by
// the one retraction rule (src/domain/integrity.ts) from the works' own source records and the update lists in force
// when it is given: rows are kept without it, so a list loaded later changes what a re-fetch shows at once. Wraps the
// use cases in the composition root; what they store is unchanged.
import { addNotice, evidenceOf, type Integrity, type IntegrityNotice, type WorkRef } from "../../domain/integrity.js";
import type { Queryable } from "../../eventstore/db.js";
import type { LiveRetractions } from "../../ingest/liveRetractions.js";
import { manifestKey } from "../../ingest/manifest.js";
import type { SearchService } from "../search/searchService.js";
import type { Unlock } from "../unlock/unlock.js";
import type { AssistedSearch } from "../assisted/assistedSearch.js";

/** Each work's integrity, in the order given. */
export type IntegrityOf = (works: readonly WorkRef[]) => Promise<Integrity[]>;

const doiOf = (metadata: Record<string, unknown>): string | null =>
  typeof metadata.doi === "string" && metadata.doi ? metadata.doi.toLowerCase() : null;
const pmidOf = (metadata: Record<string, unknown>): string | null =>
  typeof metadata.pmid === "string" && metadata.pmid ? metadata.pmid : null;

/**
 * The notices the works' own source records carry, by "doi:…" and "pmid:…", from every collection of the engine that
 * holds the work (so a row reads what works/{id} reads): only rows that carry any are read.
 */
async function sourceNoticesOf(
  db: Queryable,
  engineKind: string,
  works: readonly WorkRef[],
): Promise<Map<string, IntegrityNotice[]>> {
  const dois = [...new Set(works.flatMap((w) => (w.doi ? [w.doi] : [])))];
  const pmids = [...new Set(works.flatMap((w) => (w.pmid ? [w.pmid] : [])))];
  const found = new Map<string, IntegrityNotice[]>();
  if (dois.length === 0 && pmids.length === 0) return found;
  const rows = await db.query<{ doi: string | null; pmid: string | null; notices: IntegrityNotice[] | string }>(
    `SELECT doi, pmid, notices FROM works WHERE (doi = ANY($1::text[]) OR pmid = ANY($2::text[]))
       AND notices <> '[]'::jsonb AND starts_with(index_key, $3)`,
    [dois, pmids, `${engineKind}/`],
  );
  for (const row of rows) {
    const notices = typeof row.notices === "string" ? (JSON.parse(row.notices) as IntegrityNotice[]) : row.notices;
    for (const key of [row.doi && `doi:${row.doi}`, row.pmid && `pmid:${row.pmid}`]) {
      if (!key) continue;
      const into = found.get(key) ?? [];
      for (const n of notices) addNotice(into, { ...n });
      found.set(key, into);
    }
  }
  return found;
}

/** IntegrityOf over the works table (the engine's indexes) and the lists in force. */
export function integrityOfWorks(deps: {
  db: Queryable;
  engineKind: string;
  retractions: Pick<LiveRetractions, "integrity">;
}): IntegrityOf {
  return async (works) => {
    if (works.length === 0) return [];
    const notices = await sourceNoticesOf(deps.db, deps.engineKind, works);
    return deps.retractions.integrity(evidenceOf(works, notices));
  };
}

/**
 * The works of one collection (its works-table index key) whose integrity may be other than none, as the rule reads
 * them (integrityOfWorks): their DOI or PMID is named by the notices a source record of the engine's collections
 * carries, or their DOI by a list in force. Every other work of the collection is status none, so the integrity facet
 * lists only these (a few in a thousand) where it would list every work.
 */
export type NoticedWorks = (indexKey: string) => Promise<WorkRef[]>;

export function noticedWorksOf(deps: {
  db: Queryable;
  engineKind: string;
  retractions: Pick<LiveRetractions, "lists">;
}): NoticedWorks {
  return async (indexKey) => {
    const [noticed, held, lists] = await Promise.all([
      deps.db.query<{ doi: string | null; pmid: string | null }>(
        `SELECT doi, pmid FROM works WHERE notices <> '[]'::jsonb AND starts_with(index_key, $1)`,
        [`${deps.engineKind}/`],
      ),
      deps.db.query<{ doi: string | null; pmid: string | null }>("SELECT doi, pmid FROM works WHERE index_key = $1", [
        indexKey,
      ]),
      deps.retractions.lists(),
    ]);
    const dois = new Set(noticed.flatMap((r) => (r.doi ? [r.doi.toLowerCase()] : [])));
    const pmids = new Set(noticed.flatMap((r) => (r.pmid ? [r.pmid] : [])));
    const named = (doi: string | null) =>
      doi !== null && (dois.has(doi) || lists.flagsRetracted(doi) || lists.noticesOf(doi).length > 0);
    return held
      .map((w) => ({ doi: w.doi ? w.doi.toLowerCase() : null, pmid: w.pmid || null }))
      .filter((w) => named(w.doi) || (w.pmid !== null && pmids.has(w.pmid)));
  };
}

/**
 * Of these DOIs or PMIDs, those a collection among `collections` holds (its works table), each with its integrity by
 * the one retraction rule (status none for a work no source or list says anything of).
 */
export type HeldIntegrity = (
  field: "doi" | "pmid",
  values: readonly string[],
  collections: readonly string[],
) => Promise<Map<string, Integrity>>;

/**
 * Of these DOIs or PMIDs, those a collection among `collections` holds that the retraction rule says are retracted,
 * each with its integrity (the notices that say so). Search and the engine lookups never find such a work, so a check
 * that finds no chunk of it can say why instead of "not held".
 */
export type RetractedHeld = HeldIntegrity;

export function heldIntegrityOf(deps: { db: Queryable; engineKind: string; integrityOf: IntegrityOf }): HeldIntegrity {
  return async (field, values, collections) => {
    const found = new Map<string, Integrity>();
    if (values.length === 0 || collections.length === 0) return found;
    const held = await deps.db.query<{ doi: string | null; pmid: string | null }>(
      `SELECT DISTINCT doi, pmid FROM works WHERE ${field} = ANY($1::text[]) AND index_key = ANY($2::text[])`,
      [[...values], collections.map((name) => manifestKey(deps.engineKind, name))],
    );
    const works = held.map((w) => ({ doi: w.doi ? w.doi.toLowerCase() : null, pmid: w.pmid || null }));
    const integrity = await deps.integrityOf(works);
    works.forEach((w, i) => {
      const value = w[field];
      // a work held twice (in two collections) keeps the graver status: retracted wins
      if (value && integrity[i] && found.get(value)?.status !== "retracted") found.set(value, integrity[i]);
    });
    return found;
  };
}

/** Of the held works, those the retraction rule says are retracted. */
export function retractedAmong(held: HeldIntegrity): RetractedHeld {
  return async (field, values, collections) =>
    new Map([...(await held(field, values, collections))].filter(([, integrity]) => integrity.status === "retracted"));
}

/** The rows, each with metadata.integrity (status none for a row no source or list says anything of). */
export async function rowsWithIntegrity<R extends { metadata: Record<string, unknown> }>(
  rows: readonly R[],
  integrityOf: IntegrityOf,
): Promise<R[]> {
  if (rows.length === 0) return [...rows];
  const found = await integrityOf(rows.map((r) => ({ doi: doiOf(r.metadata), pmid: pmidOf(r.metadata) })));
  return rows.map((r, i) => ({ ...r, metadata: { ...r.metadata, integrity: found[i]! } }));
}

export function searchWithIntegrity(search: SearchService, integrityOf: IntegrityOf): SearchService {
  return {
    ...search,
    search: async (...args) => {
      const outcome = await search.search(...args);
      return { ...outcome, rows: await rowsWithIntegrity(outcome.rows, integrityOf) };
    },
    preview: async (...args) => {
      const outcome = await search.preview(...args);
      return { ...outcome, rows: await rowsWithIntegrity(outcome.rows, integrityOf) };
    },
    refetch: async (...args) => {
      const outcome = await search.refetch(...args);
      return {
        ...outcome,
        record: {
          ...outcome.record,
          payload: {
            ...outcome.record.payload,
            rows: await rowsWithIntegrity(outcome.record.payload.rows, integrityOf),
          },
        },
      };
    },
  };
}

export function unlockWithIntegrity(unlock: Unlock, integrityOf: IntegrityOf): Unlock {
  return {
    ...unlock,
    unlock: async (...args) => {
      const outcome = await unlock.unlock(...args);
      return { ...outcome, rows: await rowsWithIntegrity(outcome.rows, integrityOf) };
    },
  };
}

export function assistedWithIntegrity(assisted: AssistedSearch, integrityOf: IntegrityOf): AssistedSearch {
  const decorate = async <A extends { rows: { row: { metadata: Record<string, unknown> } }[] }>(
    answer: A,
  ): Promise<A> => {
    const rows = await rowsWithIntegrity(
      answer.rows.map((r) => r.row),
      integrityOf,
    );
    return { ...answer, rows: answer.rows.map((r, i) => ({ ...r, row: rows[i]! })) };
  };
  return {
    ...assisted,
    start: async (...args) => decorate(await assisted.start(...args)),
    resume: async (...args) => decorate(await assisted.resume(...args)),
    load: async (...args) => decorate(await assisted.load(...args)),
  };
}
