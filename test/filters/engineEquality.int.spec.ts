// Proof that the two compilers agree: random valid filters over the demo data's real metadata select the same chunks,
// in the same order, on the embedded engine and on a real OpenSearch node. Needs OpenSearch.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_COLLECTIONS_CONFIG } from "../../src/app/config.js";
import { type PlainCollection } from "../../src/domain/collectionDefinitions.js";
import { loadCollectionCatalog } from "../../src/app/collectionsFile.js";
import { compileFilterForCollections, FilterError, type CollectionFilterProfile } from "../../src/filters/parse.js";
import { prepareCollection } from "../../src/ingest/pipelineRules.js";
import { loadRetractedDois } from "../../src/ingest/retractions.js";
import { runBuildJournals } from "../../src/journals/build.js";
import { JournalMetricIndex } from "../../src/journals/metricIndex.js";
import { readJournalTable } from "../../src/journals/table.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import { createOpenSearchEngine } from "../../src/retrieval/engines/opensearch/openSearchEngine.js";
import type { ChunkRecord, RetrievalMode, SearchEngine } from "../../src/retrieval/port.js";
import type { FilterNode } from "../../src/filters/ast.js";
import { requireComponent } from "../setup/components.js";
import { pseudoRandomVector } from "../search/scifactFixture.js";
import { SHARED_DATA, sliceDataRoot } from "../support/testService.js";
import { whitespaceTokenizer } from "../ingest/wordTokenizer.js";
import { validFilter, valuePools, type FilterValuePools } from "./validFilterArbitraries.js";
import { fieldsInGroup } from "../../src/filters/fields.js";
import { absentFieldWarnings } from "../../src/usecases/search/absentFields.js";

const DIMS = 32;
/** documents per collection: "a few hundred real demo docs" */
const DOCUMENTS = 300;
/** whole filtered sets are compared up to this many chunks (ranked by the deterministic vectors) */
const FULL_SET_LIMIT = 250;
const RUNS_PER_COLLECTION = 200;
/** the demo collections whose metadata the filters draw on: scholarly, open-access-only, editorial */
const COLLECTIONS = ["openalex-synergy", "openalex-open-access", "clinical-digest"];

interface IndexedCollection {
  collection: PlainCollection;
  index: string;
  profile: CollectionFilterProfile;
  pools: FilterValuePools;
  chunkCount: number;
  queries: string[];
  /** each chunk's metadata, as indexed */
  metadata: ChunkRecord["metadata"][];
}

let dir: string;
let dataRoot: string;
let embedded: SearchEngine;
let opensearch: SearchEngine;
let journals: JournalMetricIndex;
const indexed: IndexedCollection[] = [];

/** Chunks of the first DOCUMENTS documents, as ingestion makes them, with deterministic vectors. */
function firstDocuments(records: ChunkRecord[]): ChunkRecord[] {
  const docIds = [...new Set(records.map((record) => record.metadata.doc_id))].slice(0, DOCUMENTS);
  const kept = new Set(docIds);
  return records
    .filter((record) => kept.has(record.metadata.doc_id))
    .map((record) => ({ ...record, vector: pseudoRandomVector(record.id, DIMS) }));
}

/** Query texts from the collection's own titles, so sparse retrieval has terms to match. */
function queriesFrom(records: ChunkRecord[]): string[] {
  const titles = records
    .map((record) => record.metadata.title)
    .filter((title): title is string => typeof title === "string");
  return [...new Set(titles)].slice(0, 40).map((title) => title.split(/\s+/).slice(0, 4).join(" "));
}

beforeAll(async () => {
  const url = requireComponent("opensearchUrl");
  dir = mkdtempSync(join(tmpdir(), "filter-equality-"));
  // enough works that the open-access-only collection also gets DOCUMENTS documents
  dataRoot = await sliceDataRoot(2500);
  embedded = createEmbeddedEngine({ dir: join(dir, "index") });
  opensearch = createOpenSearchEngine({ url, indexPrefix: `filter-equality-${process.pid}-` });
  // metrics of the whole demo snapshot, so the sliced documents' journals carry real values
  const journalsPath = join(dir, "journals.json");
  await runBuildJournals({ dataRoot: SHARED_DATA, outPath: journalsPath });
  journals = new JournalMetricIndex((await readJournalTable(journalsPath)).journals);

  const catalog = await loadCollectionCatalog(DEFAULT_COLLECTIONS_CONFIG);
  const retracted = await loadRetractedDois(dataRoot);
  for (const name of COLLECTIONS) {
    const collection = catalog.collections.find((candidate) => candidate.name === name);
    if (!collection) throw new Error(`demo collection ${name} is missing from config/collections.json`);
    const prepared = await prepareCollection({ collection, dataRoot, tokenizer: whitespaceTokenizer, retracted });
    const records = firstDocuments(prepared.records);
    const index = `eq-${name}`;
    for (const engine of [embedded, opensearch]) {
      await engine.ensureIndex(index, DIMS);
      await engine.indexChunks(index, records);
      await engine.commit(index);
    }
    indexed.push({
      collection,
      index,
      profile: {
        name,
        editorial: collection.kind === "editorial",
        openAccessOnly: collection.openAccessOnly,
        scanFilterable: collection.scanFilterable,
        isMetaMember: false,
      },
      pools: valuePools(records),
      chunkCount: records.length,
      queries: queriesFrom(records),
      metadata: records.map((record) => record.metadata),
    });
  }
}, 600_000);

afterAll(async () => {
  for (const { index } of indexed) await opensearch?.deleteIndex(index).catch(() => undefined);
  await opensearch?.close();
  await embedded?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

describe("the embedded predicate and the OpenSearch query select the same chunks", () => {
  it("holds real demo documents in every collection", () => {
    expect(indexed.map((entry) => entry.profile.name)).toEqual(COLLECTIONS);
    for (const entry of indexed) {
      expect(entry.chunkCount).toBeGreaterThan(100);
      expect(entry.pools.issn.length + entry.pools.doi.length).toBeGreaterThan(50);
    }
    expect(indexed[2].pools.topic.length).toBeGreaterThan(20);
  });

  it("for text too long to index: neither engine matches it, both keep it under not", async () => {
    const index = "eq-long-text";
    const long = "Long title ".repeat(800);
    const chunks: ChunkRecord[] = [long, `${long}!`, "A short title"].map((title, n) => ({
      id: `long-${n}`,
      text: `chunk ${n} about long titles`,
      tokens: 5,
      metadata: { doc_id: `long-${n}`, chunk_index: 0, title, authors: [long, `Author ${n}`] },
      vector: pseudoRandomVector(`long-${n}`, DIMS),
    }));
    for (const engine of [embedded, opensearch]) {
      await engine.ensureIndex(index, DIMS);
      await engine.indexChunks(index, chunks);
      await engine.commit(index);
    }
    const filters: FilterNode[] = [
      { kind: "eq", field: "title", value: long },
      { kind: "exists", field: "title" },
      { kind: "not", child: { kind: "in", field: "title", values: [long, "a short title"] } },
      { kind: "in", field: "authors", values: [long, "author 1"] },
    ];
    const counts = [];
    for (const filter of filters) {
      const [fromEmbedded, fromOpenSearch] = await Promise.all([
        embedded.countChunks(index, filter),
        opensearch.countChunks(index, filter),
      ]);
      expect(fromOpenSearch, JSON.stringify(filter).slice(0, 80)).toBe(fromEmbedded);
      counts.push(fromEmbedded);
    }
    expect(counts).toEqual([0, 1, 2, 1]);
    await opensearch.deleteIndex(index);
  });

  it("agree on which indexed fields no document of a collection carries (filter_field_absent)", async () => {
    const fields = [...fieldsInGroup("indexed"), ...fieldsInGroup("editorial")].filter((field) => field !== "doi");
    for (const entry of indexed) {
      const lists = fields.map((field) => ({
        collection: { name: entry.index },
        requested: { name: entry.profile.name },
        filter: { kind: "and" as const, children: [{ kind: "exists" as const, field }] },
      }));
      const [fromEmbedded, fromOpenSearch] = await Promise.all(
        [embedded, opensearch].map(async (engine) =>
          (await absentFieldWarnings(engine, lists, new Set())).map((w) => w.field),
        ),
      );
      expect(fromOpenSearch, entry.profile.name).toEqual(fromEmbedded);
      // the truth: a field is absent where no chunk's metadata has a value for it
      const carries = (value: unknown) =>
        value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0);
      const absent = fields.filter((field) => !entry.metadata.some((m) => carries(m[field])));
      expect(fromEmbedded, entry.profile.name).toEqual(absent);
      // each demo collection carries dates and lacks some field (OpenAlex works have no topic, the digest no ISBN)
      expect(absent, entry.profile.name).not.toContain("publication_date");
      expect(absent.length, entry.profile.name).toBeGreaterThan(0);
      // a collection that gave the search a candidate is never asked about
      expect(await absentFieldWarnings(opensearch, lists, new Set([entry.index]))).toEqual([]);
    }
  });

  for (const name of COLLECTIONS) {
    it(`for random valid filters on ${name}`, async () => {
      const entry = indexed.find((candidate) => candidate.profile.name === name) as IndexedCollection;
      const capabilities = { editorial: entry.profile.editorial, scan: entry.profile.scanFilterable };
      const outcomes = { searched: 0, skipped: 0, empty: 0, proper: 0, all: 0 };
      const modes: RetrievalMode[] = ["sparse", "hybrid", "dense"];
      await fc.assert(
        fc.asyncProperty(
          validFilter(entry.pools, capabilities),
          fc.constantFrom(...entry.queries),
          fc.constantFrom(...modes),
          async (filter, query, mode) => {
            let plan;
            try {
              plan = compileFilterForCollections(filter, [entry.profile], { journals }).collections[0];
            } catch (error) {
              if (error instanceof FilterError)
                throw new Error(`a valid filter was rejected: ${error.message}`, { cause: error });
              throw error;
            }
            if (plan.outcome === "skip") {
              outcomes.skipped++;
              return;
            }
            outcomes.searched++;
            const ast = plan.ast;
            const [countEmbedded, countOpenSearch] = await Promise.all([
              embedded.countChunks(entry.index, ast),
              opensearch.countChunks(entry.index, ast),
            ]);
            expect(countOpenSearch, "chunks passing the filter").toBe(countEmbedded);
            if (countEmbedded === 0) outcomes.empty++;
            else if (countEmbedded === entry.chunkCount) outcomes.all++;
            else outcomes.proper++;
            const vector = pseudoRandomVector(query, DIMS);
            // the whole filtered set (up to FULL_SET_LIMIT), then the top 10 of the request's mode
            const requests = [
              { index: entry.index, mode: "dense" as const, text: query, vector, limit: FULL_SET_LIMIT, filter: ast },
              { index: entry.index, mode, text: query, vector, limit: 10, filter: ast },
            ];
            for (const request of requests) {
              const [fromEmbedded, fromOpenSearch] = await Promise.all([
                embedded.search(request),
                opensearch.search(request),
              ]);
              expect(
                fromOpenSearch.map((hit) => hit.id),
                `${request.mode} ids`,
              ).toEqual(fromEmbedded.map((hit) => hit.id));
            }
          },
        ),
        { numRuns: RUNS_PER_COLLECTION, endOnFailure: true },
      );
      console.log(`[filter equality] ${name}: ${JSON.stringify(outcomes)}`);
      // the filters must discriminate: most select some but not all chunks
      expect(outcomes.proper).toBeGreaterThan(outcomes.searched * 0.2);
      expect(outcomes.empty + outcomes.all).toBeGreaterThan(0);
    }, 300_000);
  }
});
