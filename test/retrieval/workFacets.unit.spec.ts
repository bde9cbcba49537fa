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
import {
  authorPeopleValues,
  byCountThenValue,
  ENGINE_FACETS,
  isDocumentLevelFilter,
  topBuckets,
  type EngineFacet,
  type EngineFacetBucket,
} from "../../src/retrieval/workFacetValues.js";
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

  it("declines (null: the works are listed) when two documents share a DOI or PMID, or one lacks a first chunk", () => {
    const shared = documents(3)
      .flat()
      .map((m) => ({ metadata: { ...m, doi: "10.1/SAME" } }));
    expect(countWorkFacets(buildWorkFacetTable(shared), undefined, ["journal"], 5)).toBeNull();
    // two records of one paper known by its PMID alone (no DOI): one work, as a listing counts it
    const samePmid = documents(3)
      .flat()
      .map(({ doi: _doi, ...m }) => ({ metadata: { ...m, pmid: m.doc_id === "d0002" ? "999" : "123" } }));
    expect(countWorkFacets(buildWorkFacetTable(samePmid), undefined, ["journal"], 5)).toBeNull();
    const ownPmids = samePmid.map(({ metadata }) => ({ metadata: { ...metadata, pmid: String(metadata.doc_id) } }));
    expect(countWorkFacets(buildWorkFacetTable(ownPmids), undefined, ["journal"], 5)).not.toBeNull();
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
    expect(Object.keys(values).sort()).toEqual(
      [...ENGINE_FACETS, "issn", "author_links", "author_person", "author_person_name", "author_orcid_role"].sort(),
    );
  });

  it("answers buckets in code-unit order of ties, the smallest ISSN, and null for a DOI or PMID two share", () => {
    const response = (shared: number, sharedPmid = 0) => ({
      hits: { total: { value: 9 } },
      aggregations: {
        shared_doi: { buckets: Array.from({ length: shared }, () => ({ key: "10.1/x", doc_count: 2 })) },
        shared_pmid: { buckets: Array.from({ length: sharedPmid }, () => ({ key: "123", doc_count: 2 })) },
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
    expect(facetCountsOf(response(0, 1), ["journal"], 2)).toBeNull();
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
  type Head = (typeof heads)[number];
  /** a terms aggregation over these works' values: by count, then key (OpenSearch's order on one shard) */
  const terms = (works: Head[], values: (h: Head) => string[], size: number, minCount = 1, only?: RegExp) => {
    const counts = new Map<string, number>();
    for (const h of works) for (const v of values(h)) counts.set(v, (counts.get(v) ?? 0) + 1);
    const all = [...counts]
      .filter(([key, n]) => n >= minCount && (!only || only.test(key)))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const other = all.slice(size).reduce((sum, [, n]) => sum + n, 0);
    return { kept: all.slice(0, size), other };
  };
  const people = (works: Head[], agg: { terms: { size: number; min_doc_count?: number } }) => {
    const { kept, other } = terms(works, (h) => h.author_person, agg.terms.size, agg.terms.min_doc_count);
    const buckets = kept.map(([key, doc_count]) => {
      const names = terms(
        works.filter((h) => h.author_person.includes(key)),
        (h) => h.author_person_name,
        10_000,
      );
      return { key, doc_count, names: { buckets: names.kept.map(([k, n]) => ({ key: k, doc_count: n })) } };
    });
    return { buckets, sum_other_doc_count: other };
  };
  const call = async <T>(method: string, path: string, body?: unknown) => {
    if (method === "GET") return { statusCode: 200, body: { i: { mappings: { _meta: meta } } } as T };
    const request = body as {
      query: { bool: { filter: Array<{ terms?: Record<string, string[]> }> } };
      aggs?: Record<string, { terms: { field: string; size: number; min_doc_count?: number; include?: string } }>;
    };
    const filters = request.query.bool.filter;
    const links = filters.find((f) => f.terms)?.terms?.["work_facets.author_links"];
    const roles = filters.find((f) => f.terms)?.terms?.["work_facets.author_orcid_role"];
    const aggs = request.aggs ?? {};
    const orcids = aggs.author_orcid_only_list;
    requests.push(links ? "links" : roles ? "roles" : aggs.shared_doi ? "facets" : orcids ? "orcids" : "people");
    if (links || roles) {
      const asked = links ?? roles!;
      const value = heads.filter((h) => [...h.author_links, ...h.author_orcid_role].some((l) => asked.includes(l)));
      return { statusCode: 200, body: { hits: { total: { value: value.length } }, aggregations: {} } as T };
    }
    const aggregations: Record<string, unknown> = {};
    if (orcids) {
      const { kept, other } = terms(heads, (h) => h.author_orcid_role, orcids.terms.size, 1, /^only:/);
      aggregations.author_orcid_only_list = {
        buckets: kept.map(([key, doc_count]) => ({ key, doc_count })),
        sum_other_doc_count: other,
      };
    }
    if (aggs.author?.terms.field === "work_facets.author_person") aggregations.author = people(heads, aggs.author);
    else if (aggs.author) {
      const { kept } = terms(heads, (h) => h.author, aggs.author.terms.size);
      aggregations.author = { buckets: kept.map(([key, doc_count]) => ({ key, doc_count })), sum_other_doc_count: 0 };
    }
    const withRole = (prefix: string) => heads.filter((h) => h.author_orcid_role.some((r) => r.startsWith(prefix)));
    if (aggs.author_orcid_only) aggregations.author_orcid_only = { doc_count: withRole("only:").length };
    if (aggs.author_orcid_paired) aggregations.author_orcid_paired = { doc_count: withRole("paired:").length };
    if (aggs.shared_doi) aggregations.shared_doi = { buckets: [] };
    if (aggs.author_same_person)
      aggregations.author_same_person = { doc_count: heads.filter((h) => h.author_links.includes("*")).length };
    const response = { hits: { total: { value: heads.length } }, aggregations } as FacetAggregationResponse;
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

describe("the OpenSearch author facet by person (mapping version 6)", () => {
  const byWork = documents(300);
  const people = { workFacets: true, workFacetAuthors: true, workFacetPeople: true };

  it("writes each entry's person before any ORCID is resolved, its spelling, and its ORCID's role", () => {
    const values = authorPeopleValues({
      authorships: [
        who("P. 4", "A4", "0000-0000-0000-0004"),
        who("Q", null, "0000-0000-0000-0002"),
        who("R", null, null),
      ],
    });
    expect(values).toEqual({
      author_person: ["id:A4", "id:0000-0000-0000-0002", "name:R"],
      author_person_name: ["id:A4\u0001P. 4", "id:0000-0000-0000-0002\u0001Q", "name:R\u0001R"],
      author_orcid_role: ["paired:0000-0000-0000-0004", "only:0000-0000-0000-0002"],
    });
  });

  it("counts people in a few buckets, ties at the last one read in full, as the listed works are counted", async () => {
    // an ORCID-only authorship no counted work pairs with an id (person 4's, whom others carry with one, left out)
    const orcidOnly = [who("Person 6", null, "0000-0000-0000-0006"), who("Person 1", "A1", null)];
    const chunks = byWork.map((work, i) => (i % 10 !== 3 ? work : work.map((m) => ({ ...m, authorships: orcidOnly }))));
    const shard = simulatedShard(chunks.flat());
    shard.setMeta(people);
    for (const limit of [1, 2, 5, 100]) {
      const own = await shard.count("c", undefined, ["author", "journal"], limit);
      expect(own?.facets.author).toEqual(countFacets(listed(chunks.flat()), ["author"], limit).facets.author);
    }
    // one aggregation request a count, the ORCIDs checked; never every entry
    expect(shard.requests.filter((r) => r === "facets")).toHaveLength(4);
    expect(shard.requests).toContain("roles");
    expect(shard.requests).not.toContain("links");
    // ties at the last bucket: the engine orders them by key (A2 before A3), the facet by spelling ("Al" first)
    const work = (i: number, authorships: ReturnType<typeof who>[]): ChunkMetadata => ({
      doc_id: `t${i}`,
      chunk_index: 0,
      authorships,
    });
    const tied = [
      work(0, [who("Zed", "A1", null), who("Zoe", "A2", null)]),
      work(1, [who("Zed", "A1", null)]),
      work(2, [who("Al", "A3", null)]),
      work(3, [who("Cy", null, null)]),
    ];
    const small = simulatedShard(tied);
    small.setMeta(people);
    const two = await small.count("c", undefined, ["author"], 2);
    expect(two?.facets.author).toEqual([
      { value: "Zed", count: 2, id: "A1" },
      { value: "Al", count: 1, id: "A3" },
    ]);
    expect(two?.facets.author).toEqual(countFacets(listed(tied), ["author"], 2).facets.author);
    expect(small.requests).toEqual(["facets", "people"]);
  });

  it("counts by entry when an ORCID-only entry resolves to a counted id; declines a person named twice", async () => {
    const chunks = byWork.flat();
    const shard = simulatedShard(chunks);
    shard.setMeta(people);
    for (const limit of [1, 5, 100]) {
      const own = await shard.count("c", undefined, ["author"], limit);
      expect(own?.facets.author).toEqual(countFacets(listed(chunks), ["author"], limit).facets.author);
    }
    // the ORCID-only entries' ORCIDs come with the first request's counts, not in a request of their own
    expect(shard.requests).toEqual(expect.arrayContaining(["roles", "links"]));
    expect(shard.requests).not.toContain("orcids");
    const twice = byWork.map((work, i) =>
      i !== 7 ? work : work.map((m) => ({ ...m, authorships: [who("Person 4", "A4", null), who("P. 4", "A4", null)] })),
    );
    const named = simulatedShard(twice.flat());
    named.setMeta(people);
    expect(await named.count("c", undefined, ["author"], 5)).toBeNull();
  });
});

describe("the largest buckets of a facet", () => {
  it("are the first `limit` of all of them sorted, ties and equal buckets included, without sorting them all", () => {
    // few counts and values, so counts tie, values tie and some buckets are equal
    const buckets: EngineFacetBucket[] = Array.from({ length: 300 }, (_, i) => {
      const value = `v${(i * 7919) % 13}`;
      const count = (i * 104729) % 6;
      return i % 4 === 0 ? { value, count } : { value, count, id: `A${i % 5}` };
    });
    for (const limit of [0, 1, 3, 10, 299, 300, 400])
      expect(topBuckets(buckets, limit)).toEqual([...buckets].sort(byCountThenValue).slice(0, limit));
  });
});
