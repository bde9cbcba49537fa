// metadata.integrity on every row a client is given (search, preview, unlock, re-fetch, assisted), from the update
// lists in force when it is given: rows are kept without it, so a list loaded later changes what a re-fetch shows at
// once. Wraps the use cases in the composition root; what they store is unchanged.
import { NO_INTEGRITY_NOTICE, type Integrity } from "../../domain/integrity.js";
import type { SearchService } from "../search/searchService.js";
import type { Unlock } from "../unlock/unlock.js";
import type { AssistedSearch } from "../assisted/assistedSearch.js";

export type IntegrityOf = (dois: readonly string[]) => Promise<Map<string, Integrity>>;

const doiOf = (metadata: Record<string, unknown>): string | null =>
  typeof metadata.doi === "string" && metadata.doi ? metadata.doi.toLowerCase() : null;

/** The rows, each with metadata.integrity (status none for a row without a DOI). */
export async function rowsWithIntegrity<R extends { metadata: Record<string, unknown> }>(
  rows: readonly R[],
  integrityOf: IntegrityOf,
): Promise<R[]> {
  if (rows.length === 0) return [...rows];
  const dois = rows.map((r) => doiOf(r.metadata)).filter((d): d is string => d !== null);
  const found = dois.length > 0 ? await integrityOf(dois) : new Map<string, Integrity>();
  return rows.map((r) => {
    const doi = doiOf(r.metadata);
    return { ...r, metadata: { ...r.metadata, integrity: (doi ? found.get(doi) : undefined) ?? NO_INTEGRITY_NOTICE } };
  });
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
