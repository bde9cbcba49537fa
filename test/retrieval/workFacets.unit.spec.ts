// The facets an engine counts itself (src/retrieval/workFacetValues.ts): the embedded engine's per-work table and the
// OpenSearch aggregation's request and answer give the counts works/facets gives the listed works in Node
// (facetCounts.ts), bucket for bucket; a filter on a field a document's chunks need not share, two documents of one
// DOI and a document without its first chunk leave the count to the listing.
import { describe, expect, it } from "vitest";
import { countFacets, type FacetDocument } from "../../src/usecases/works/facetCounts.js";
import { buildWorkFacetTable, countWorkFacets } from "../../src/retrieval/engines/embedded/workFacetTable.js";
import {
  facetAggregationBody,
  facetCountsOf,
  facetCountsOver,
  type FacetAggregationResponse,
} from "../../src/retrieval/engines/opensearch/facetAggregations.js";
import { toDocument } from "../../src/retrieval/engines/opensearch/chunkDocuments.js";
import { compileToPredicate } from "../../src/filters/compileToPredicate.js";
import { ENGINE_FACETS, isDocumentLevelFilter, type EngineFacet } from "../../src/retrieval/workFacetValues.js";
import type { FilterNode } from "../../src/filters/ast.js";
import type { ChunkMetadata } from "../../src/retrieval/port.js";

/** a small deterministic generator (no Math.random: the same documents every run) */
function documents(n: number): ChunkMetadata[][] {
  let seed = 7;
  const next = (k: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % k);
  const journals = ["Stress", "stress", " Stress ", "Psychoneuroendocrinology", "Ärztliche Praxis", "𝔐ath", "\uE000x"];
  const subjects = ["Cortisol", "cortisol", "Hair", "Stress", "hair "];
  // people with an OpenAlex id and ORCID, an id only, an ORCID only, a name only; spelled two ways
  const person = (k: number) => ({
    name: next(3) === 0 ? `P. ${k}` : `Person ${k}`,
    id: k % 4 < 2 ? `A${k}` : null,
    orcid: k % 4 === 0 || k % 4 === 2 ? `0000-0000-0000-000${k}` : null,
    position: null,
  });
  return Array.from({ length: n }, (_, i) => {
    const metadata: ChunkMetadata = {
      doc_id: `d${String(i).padStart(4, "0")}`,
      chunk_index: 0,
      ...(next(5) > 0 ? { journal: journals[next(journals.length)] } : {}),
      ...(next(4) > 0 ? { publication_date: `${2000 + next(20)}-0${1 + next(9)}-01` } : {}),
      ...(next(3) > 0 ? { keywords: [subjects[next(5)], subjects[next(5)], ""] } : {}),
      ...(next(2) > 0 ? { article_type: next(2) ? "review" : "research-article" } : {}),
      ...(next(3) > 0 ? { open_access: next(2) === 0 } : {}),
      ...(next(2) > 0 ? { issn: [`${1000 + next(3)}-000${next(9)}`, `0${next(9)}00-1234`] } : {}),
      ...(next(2) > 0 ? { doi: `10.1/${i}` } : {}),
      ...(next(4) > 0
        ? { authorships: Array.from({ length: 1 + next(3) }, () => person(next(9))) }
        : { authors: [`Person ${next(9)}`] }),
    };
    // an ORCID-only authorship of a person others carry with an id (the count joins it to that id)
    if (i % 10 === 3) metadata.authorships = [{ ...person(4), id: null }, person(1)];
    if (i % 10 === 4) metadata.authorships = [person(4), person(5)];
    // a second chunk: the same document-level fields, its own section
    return [
      { ...metadata, section: "abstract" },
      { ...metadata, chunk_index: 1, section: next(2) ? "methods" : "results" },
    ];
  });
}

const listed = (chunks: ChunkMetadata[], filter?: FilterNode): FacetDocument[] => {
  const passes = filter ? compileToPredicate(filter) : () => true;
  const kept = new Set(chunks.filter((m) => passes(m)).map((m) => m.doc_id));
  return chunks
    .filter((m) => m.chunk_index === 0 && kept.has(m.doc_id))
    .map((metadata) => ({ physical: "c", metadata }));
};

const FILTERS: (FilterNode | undefined)[] = [
  undefined,
  { kind: "eq", field: "open_access", value: true },
  { kind: "range", field: "publication_date", bounds: { gte: "2010" } },
  { kind: "not", child: { kind: "eq", field: "journal", value: "stress" } },
];

describe("the embedded engine's per-work facet table", () => {
  const chunks = documents(400).flat();
  const table = buildWorkFacetTable(chunks.map((metadata) => ({ metadata })));

  it.each(FILTERS.map((f) => [JSON.stringify(f ?? null), f] as const))(
    "counts as the listed works are counted (filter %s)",
    (_, filter) => {
      const predicate = filter ? compileToPredicate(filter) : undefined;
      for (const limit of [1, 3, 100]) {
        const own = countWorkFacets(table, predicate && ((o) => predicate(chunks[o]!)), ENGINE_FACETS, limit);
        expect(own).toEqual(countFacets(listed(chunks, filter), ENGINE_FACETS, limit));
      }
    },
  );

  it("keeps case and accents apart ('Stress' and 'stress' are two journals) and trims", () => {
    const journals = countWorkFacets(table, undefined, ["journal"], 100)!.facets.journal!.map((b) => b.value);
    expect(journals).toContain("Stress");
    expect(journals).toContain("stress");
    expect(journals).not.toContain(" Stress ");
  });

  it("declines (null: the works are listed) when two documents share a DOI or one has no first chunk", () => {
    const shared = documents(3)
      .flat()
      .map((m) => ({ metadata: { ...m, doi: "10.1/SAME" } }));
    expect(countWorkFacets(buildWorkFacetTable(shared), undefined, ["journal"], 5)).toBeNull();
    const headless = documents(3)
      .flat()
      .filter((m) => !(m.doc_id === "d0001" && m.chunk_index === 0));
    expect(
      countWorkFacets(buildWorkFacetTable(headless.map((metadata) => ({ metadata }))), undefined, ["journal"], 5),
    ).toBeNull();
  });
});

describe("the embedded engine's author facet", () => {
  const byWork = documents(300);
  // works naming one person twice: a shared id, and an ORCID-only entry its id resolves (counted per work, not entry)
  const twice = byWork.map((work, i) =>
    i === 7
      ? work.map((m) => ({
          ...m,
          authorships: [who("Person 4", "A4", null), who("P. 4", "A4", "0000-0000-0000-0004")],
        }))
      : i === 8
        ? work.map((m) => ({ ...m, authorships: [who("Person 4", "A4", null), who("Q", null, "0000-0000-0000-0004")] }))
        : work,
  );

  it.each([
    ["entries counted once each", byWork],
    ["a work naming one person twice", twice],
  ])("counts people as the listed works are counted (%s)", (_, works) => {
    const chunks = works.flat();
    const table = buildWorkFacetTable(chunks.map((metadata) => ({ metadata })));
    for (const filter of FILTERS) {
      const predicate = filter ? compileToPredicate(filter) : undefined;
      for (const limit of [1, 5, 100]) {
        const own = countWorkFacets(table, predicate && ((o) => predicate(chunks[o]!)), ["author"], limit);
        expect(own).toEqual(countFacets(listed(chunks, filter), ["author"], limit));
      }
    }
  });
});

describe("which filters an engine counts over first chunks", () => {
  it("takes document-level fields, not section, chunk_index or a book's chapters", () => {
    expect(isDocumentLevelFilter(undefined)).toBe(true);
    expect(isDocumentLevelFilter(FILTERS[3])).toBe(true);
    const section: FilterNode = { kind: "eq", field: "section", value: "methods" };
    expect(isDocumentLevelFilter(section)).toBe(false);
    expect(isDocumentLevelFilter({ kind: "and", children: [FILTERS[1]!, { kind: "not", child: section }] })).toBe(
      false,
    );
    expect(isDocumentLevelFilter({ kind: "exists", field: "chapter_title" })).toBe(false);
    expect(isDocumentLevelFilter({ kind: "range", field: "chunk_index", bounds: { lte: 0 } })).toBe(false);
  });
});

describe("the OpenSearch facets aggregation", () => {
  const facets: EngineFacet[] = [...ENGINE_FACETS];

  it("is one request of size 0 over first chunks, the filter as the query, exact keywords, the total tracked", () => {
    const body = facetAggregationBody(FILTERS[1], facets, 10) as {
      size: number;
      track_total_hits: boolean;
      query: { bool: { filter: unknown[] } };
      aggs: Record<string, { terms: { field: string; size: number } }>;
    };
    expect(body.size).toBe(0);
    expect(body.track_total_hits).toBe(true);
    expect(body.query.bool.filter).toHaveLength(2);
    expect(body.query.bool.filter[1]).toEqual({ term: { "metadata.chunk_index": 0 } });
    expect(body.aggs.journal!.terms).toEqual({ field: "work_facets.journal", size: 11 });
  });

  it("writes each first chunk's values (and only the first chunk's) as the table counts them", () => {
    const [first, second] = documents(1)[0]!;
    const info = { dims: 2, embedding: null, vectorStorage: "binary", binaryVectors: true, workFacets: true } as const;
    const record = (metadata: ChunkMetadata) => ({ id: "x", text: "t", tokens: 1, metadata });
    expect(toDocument(record(second!), info, "f").work_facets).toBeUndefined();
    const values = toDocument(record(first!), info, "f").work_facets!;
    expect(Object.keys(values).sort()).toEqual([...ENGINE_FACETS, "issn", "author_links"].sort());
  });

  it("answers buckets in code-unit order of ties, the journal's smallest ISSN, and null for a DOI two share", () => {
    const response = (shared: number) => ({
      hits: { total: { value: 9 } },
      aggregations: {
        shared_doi: { buckets: Array.from({ length: shared }, () => ({ key: "10.1/x", doc_count: 2 })) },
        journal: {
          buckets: [
            { key: "\uE000x", doc_count: 3, issn: { buckets: [{ key: "1000-0001" }] } },
            { key: "𝔐ath", doc_count: 3, issn: { buckets: [] } },
            { key: "A", doc_count: 2, issn: { buckets: [{ key: "0100-1234" }] } },
          ],
        },
      },
    });
    expect(facetCountsOf(response(0), ["journal"], 2)).toEqual({
      total: 9,
      facets: {
        journal: [
          { value: "𝔐ath", count: 3 },
          { value: "\uE000x", count: 3, id: "1000-0001" },
        ],
      },
    });
    expect(facetCountsOf(response(1), ["journal"], 2)).toBeNull();
  });
});

/**
 * A stand-in for one shard of OpenSearch over these documents (as toDocument writes them): the facets aggregation's
 * terms and filter counts, and the author links request's total, computed from the indexed work_facets.
 */
function simulatedShard(chunks: ChunkMetadata[]) {
  const info = { dims: 2, embedding: null, vectorStorage: "binary", binaryVectors: true, workFacets: true } as const;
  const heads = chunks
    .filter((m) => m.chunk_index === 0)
    .map((m) => toDocument({ id: "x", text: "t", tokens: 1, metadata: m }, info, "f").work_facets!);
  const requests: string[] = [];
  const call = async <T>(method: string, path: string, body?: unknown) => {
    if (method === "GET") return { statusCode: 200, body: { i: { mappings: { _meta: meta } } } as T };
    const filters = (body as { query: { bool: { filter: Array<{ terms?: Record<string, string[]> }> } } }).query.bool
      .filter;
    const links = filters.find((f) => f.terms)?.terms?.["work_facets.author_links"];
    requests.push(links ? "links" : "facets");
    if (links) {
      const value = heads.filter((h) => h.author_links.some((l) => links.includes(l))).length;
      return { statusCode: 200, body: { hits: { total: { value } }, aggregations: {} } as T };
    }
    const entries = new Map<string, number>();
    for (const h of heads) for (const e of h.author) entries.set(e, (entries.get(e) ?? 0) + 1);
    const response: FacetAggregationResponse = {
      hits: { total: { value: heads.length } },
      aggregations: {
        shared_doi: { buckets: [] },
        author_same_person: { buckets: [], doc_count: heads.filter((h) => h.author_links.includes("*")).length },
        author: { buckets: [...entries].map(([key, doc_count]) => ({ key, doc_count })), sum_other_doc_count: 0 },
      },
    };
    return { statusCode: 200, body: response as T };
  };
  let meta: Record<string, unknown> = { workFacets: true, workFacetAuthors: true };
  const count = facetCountsOver(call as never, () => "i");
  return { count, requests, setMeta: (m: Record<string, unknown>) => (meta = m) };
}

const who = (name: string, id: string | null, orcid: string | null) => ({ name, id, orcid, position: null });

describe("the OpenSearch author facet", () => {
  const byWork = documents(300);
  const chunks = byWork.flat();

  it("counts people from the entries' counts as the listed works are counted", async () => {
    const shard = simulatedShard(chunks);
    for (const limit of [1, 5, 100]) {
      const own = await shard.count("c", undefined, ["author"], limit);
      expect(own?.facets.author).toEqual(countFacets(listed(chunks), ["author"], limit).facets.author);
      // the facets in the order asked, as the listed works' count answers them
      const both = await shard.count("c", undefined, ["author", "journal"], limit);
      expect(Object.keys(both!.facets)).toEqual(["author", "journal"]);
    }
    // the generated ORCID-only authorships of person 4 resolve to A4: the links were asked about (none in one work)
    expect(shard.requests).toContain("links");
  });

  it("declines when a counted work names one person twice (a shared id, or an ORCID its id resolves)", async () => {
    const twice = byWork.map((work, i) =>
      i !== 7
        ? work
        : work.map((m) => ({
            ...m,
            authorships: [who("Person 4", "A4", null), who("P. 4", "A4", "0000-0000-0000-0004")],
          })),
    );
    expect(await simulatedShard(twice.flat()).count("c", undefined, ["author"], 5)).toBeNull();
    const resolved = byWork.map((work, i) =>
      i !== 7
        ? work
        : work.map((m) => ({
            ...m,
            authorships: [who("Person 4", "A4", null), who("Person 4", null, "0000-0000-0000-0004")],
          })),
    );
    const shard = simulatedShard(resolved.flat());
    expect(await shard.count("c", undefined, ["author"], 5)).toBeNull();
    expect(await shard.count("c", undefined, ["journal"], 5)).not.toBeNull();
  });

  it("leaves an index without author entries (mapping version 4) to the listing, not its other facets", async () => {
    const shard = simulatedShard(chunks);
    shard.setMeta({ workFacets: true });
    expect(await shard.count("c", undefined, ["author"], 5)).toBeNull();
    expect(await shard.count("c", undefined, ["journal"], 5)).not.toBeNull();
  });
});
