// A work as ingestion stores it, for the works tables' tests: its ids, publication date and references, every
// bibliographic field empty.
import type { StoredWork } from "../../src/ingest/works.js";

export function storedWork(
  docId: string,
  ids: Partial<StoredWork>,
  refs: StoredWork["references"] = [],
  date: string | null = null,
): StoredWork {
  return {
    docId,
    doi: null,
    pmid: null,
    pmcid: null,
    openalex: null,
    searchable: true,
    notices: [],
    fields: {
      title: docId,
      authors: [],
      authorships: [],
      journal: null,
      issn: [],
      publisher: null,
      publication_date: date,
      article_type: null,
      open_access: null,
      license: null,
      url: null,
      cited_by_count: null,
      abstract: null,
      keywords: [],
      mesh: [],
    },
    referencesRecorded: refs.length,
    references: refs,
    ...ids,
  };
}
