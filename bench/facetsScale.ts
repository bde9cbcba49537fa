// Facets and author lookups at scale, on one engine: N generated chunks (bench/scaleBench.ts: SciFact abstracts
// replicated), three chunks a work, given the metadata facets read - years 2000-2024 skewed to recent ones, a journal
// of 400 (with its ISSN) and two subjects of 300 skewed to a few, three distinct authors of 40,000 people skewed so
// some have hundreds of works (OpenAlex id and ORCID; one in ten ORCID-only, one in ten name-only) - indexed in the
// service's engine, the works written to PGlite as ingestion writes them. Then, through the use cases the routes run
// (quota event included): facets without a query (year and journal, the field's growth; then the six facets other than
// integrity, the author facet alone, and integrity, which reads the collection's works' DOIs in the works table and
// lists those a notice names), facets with a query (year and
// journal over its relevant works), and GET /authors/{id}, ?name= and /{id}/works. The load writes generated vectors
// through the engine's bulk path (no embedding model). Usage: npm run bench:facets-scale -- --engine
// embedded|opensearch --chunks N [--runs 20] [--slow-runs 3]
//   [--in-flight 2] [--sparse] [--drop] [--store pglite|postgres] [--skip-check]. --sparse loads a sparse collection
// (BM25 only: no vectors, so no k-NN graph to build; its query is BM25), which loads 500,000 chunks in minutes; without
// it the collection is hybrid, as SciFact.
//   The loaded index and works are kept in data/bench/facets-scale/ and reused by the next run of the same engine,
//   size and kind (--drop removes them after the run).
//   --store pglite|postgres: where the works and the event store live (default pglite, the embedded engine's shape;
//   postgres starts a PostgreSQL server from the provisioned component, its cluster kept beside the index, as the
//   scaled shape runs OpenSearch on PostgreSQL). The works are written to each store once and reused.
// Prints a readable line per figure, then one JSON line. Progress on stderr.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cacheDirFrom } from "../src/app/config.js";
import { loadCollectionCatalog } from "../src/app/collectionsFile.js";
import { openEmbedder } from "../src/app/composition.js";
import type { CollectionCatalog, PlainCollection } from "../src/domain/collectionDefinitions.js";
import type { Authorship } from "../src/domain/authors.js";
import { openPglite, openPostgres, type Db } from "../src/eventstore/db.js";
import { migrate } from "../src/eventstore/schema.js";
import { FEATURE_PROJECTORS, PROJECTION_READ_MODELS } from "../src/app/projectors.js";
import { readComponent } from "../src/infra/components.js";
import { startOpenSearchNode, type OpenSearchNode } from "../src/infra/opensearchNode.js";
import { startPostgresServer, type PostgresServer } from "../src/infra/postgresServer.js";
import { manifestKey } from "../src/ingest/manifest.js";
import { workOfDocument } from "../src/ingest/works.js";
import { replaceWorks } from "./replaceWorks.js";
import type { DocumentMetadata } from "../src/ingest/sourceDocument.js";
import { createEmbeddedEngine } from "../src/retrieval/engines/embedded/embeddedEngine.js";
import { createOpenSearchEngine } from "../src/retrieval/engines/opensearch/openSearchEngine.js";
import { facetAggregationBody } from "../src/retrieval/engines/opensearch/facetAggregations.js";
import type { EngineFacet } from "../src/retrieval/workFacetValues.js";
import type { ChunkRecord, SearchEngine } from "../src/retrieval/port.js";
import { UNLIMITED_BENCH_AUTH } from "./benchAuth.js";
import { createAuthors } from "../src/usecases/authors/authors.js";
import { createWorks } from "../src/usecases/works/works.js";
import { createWorkFacets, type FacetsRequest } from "../src/usecases/works/workFacets.js";
import { noticedWorksOf } from "../src/usecases/works/integrityRows.js";
import { createLiveRetractions } from "../src/ingest/liveRetractions.js";
import { countFacets, FACET_FIELDS } from "../src/usecases/works/facetCounts.js";
import { ExactTopTen, indexGenerated, loadScaleSource, SCALE_INDEX } from "./scaleBench.js";
import { benchConfig, BENCH_DIR } from "./scifactBench.js";

const { values: args } = parseArgs({
  options: {
    engine: { type: "string" },
    chunks: { type: "string" },
    runs: { type: "string", default: "20" },
    "slow-runs": { type: "string", default: "3" },
    heap: { type: "string", default: "2g" },
    sparse: { type: "boolean", default: false },
    drop: { type: "boolean", default: false },
    "in-flight": { type: "string", default: "2" },
    store: { type: "string", default: "pglite" },
    /**
     * leaves out the check that the engine's counts equal the listed works' (it lists every work: minutes at 500,000)
     */
    "skip-check": { type: "boolean", default: false },
  },
});
const engineKind = args.engine;
const chunks = Number(args.chunks);
if ((engineKind !== "embedded" && engineKind !== "opensearch") || !Number.isInteger(chunks) || chunks < 1)
  throw new Error("usage: --engine embedded|opensearch --chunks N [--runs 20]");
const store = args.store;
if (store !== "pglite" && store !== "postgres") throw new Error("--store takes pglite or postgres");
const runs = Number(args.runs);
/** runs of the figures that read every work (listDocuments, the author facet): tens of seconds each at 500,000 */
const slowRuns = Number(args["slow-runs"]);

const JOURNALS = 400;
const SUBJECTS = 300;
const PEOPLE = 40_000;
/** a small integer hash, so every engine and run generates the same metadata for a chunk */
const mix = (n: number): number => {
  let h = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
};
const orcidOf = (person: number): string => {
  const digits = String(1_000_000_000_000_000 + person * 7).slice(1, 16);
  let total = 0;
  for (const c of digits) total = (total + Number(c)) * 2;
  const check = (12 - (total % 11)) % 11;
  const all = digits + (check === 10 ? "X" : String(check));
  return `${all.slice(0, 4)}-${all.slice(4, 8)}-${all.slice(8, 12)}-${all.slice(12)}`;
};

/** chunks of one generated work: its first carries the work's facets (work_facets), as ingestion writes them */
const CHUNKS_PER_WORK = 3;
/** In each cache directory's name, so an index of another generator is never reused. */
const FACETS_GENERATOR = `v2: ${CHUNKS_PER_WORK} chunks a work, skewed years, journals, subjects and authors`;
/** a skewed draw in [0, n): u^power puts most draws on the first values (a few journals, people with many works) */
const skewed = (hash: number, n: number, power: number): number => Math.floor(n * (hash / 4294967296) ** power);

/** Three distinct people of one work (one person is never two entries of a work), the first ones the most prolific. */
function peopleOf(work: number): number[] {
  const people: number[] = [];
  for (let i = 0; people.length < 3; i++) {
    const person = skewed(mix(work * 7 + i), PEOPLE, 2);
    if (!people.includes(person)) people.push(person);
  }
  return people;
}

/**
 * The facet metadata of generated chunk `ordinal`: chunk `ordinal % CHUNKS_PER_WORK` of work `ordinal /
 * CHUNKS_PER_WORK`, with the work's year (skewed to recent years: a growing field), journal, ISSN, subjects, authors
 * and article type.
 */
function facetMetadata(chunk: ChunkRecord): ChunkRecord {
  const ordinal = Number(chunk.id.slice("gen-".length));
  const work = Math.floor(ordinal / CHUNKS_PER_WORK);
  const h = mix(work);
  const journal = skewed(h, JOURNALS, 2.5);
  const year = 2024 - skewed(mix(work ^ 0x5bd1e995), 25, 2);
  const authorships: Authorship[] = peopleOf(work).map((person, i) => {
    const kind = person % 10; // 0: name only, 1: ORCID only, else OpenAlex id and ORCID
    return {
      name: `Author${person} Family${person % 997}`,
      id: kind > 1 ? `A${5_000_000_000 + person}` : null,
      orcid: kind > 0 ? orcidOf(person) : null,
      position: i === 0 ? "first" : i === 2 ? "last" : "middle",
    };
  });
  const metadata = {
    ...chunk.metadata,
    doc_id: `gen-w${work}`,
    chunk_index: ordinal % CHUNKS_PER_WORK,
    publication_date: `${year}-${String((h % 12) + 1).padStart(2, "0")}-15`,
    open_access: h % 3 === 0,
    journal: `Generated Journal ${journal}`,
    issn: [`${String(1000 + journal)}-${String(1000 + (journal % 97))}`],
    keywords: [`Subject ${skewed(mix(h), SUBJECTS, 2)}`, `Subject ${(h >>> 9) % SUBJECTS}`],
    authors: authorships.map((a) => a.name),
    authorships,
    author_id: authorships.flatMap((a) => [a.id, a.orcid].filter((x): x is string => x !== null)),
    article_type: h % 5 === 0 ? "review" : "research-article",
  };
  return { ...chunk, metadata };
}

/** chunks per bulk request while loading (the adapter's default 500; 2,500 ran past the client's timeout, load 28) */
const LOAD_BULK = 1_000;
/**
 * bulk calls in flight while loading OpenSearch (--in-flight, default 2: one per core indexes while the next batches
 * are generated; at load 27 two ran past the client's 30 s timeout, so a loaded machine takes 1)
 */
const LOAD_IN_FLIGHT = Number(args["in-flight"]);

/**
 * The generated index's translog while loading (OpenSearch): "async" fsyncs every 5 s instead of every bulk request,
 * "request" is the index's setting again once loaded. Refreshes are already off (refresh_interval -1: commit refreshes)
 * and a node's index has no replica. The k-NN setting index.knn.advanced.approximate_threshold (-1: no graph until
 * set back and force-merged) is not used: it applies to the plugin's native engines, and 2.19.1 builds our Lucene
 * engine's graph with it all the same (docs/operations.md, "The vector graph while loading").
 */
async function loadSettings(on: OpenSearchNode | undefined, durability: "async" | "request"): Promise<void> {
  if (!on) return;
  const response = await fetch(`${on.url}/facets-scale-${SCALE_INDEX}/_settings`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ index: { translog: { durability } } }),
  });
  if (!response.ok) throw new Error(`translog ${durability}: ${response.status} ${await response.text()}`);
}

/**
 * Where a request's time goes (bench only): the store's and the engine's calls the use cases make, timed while a figure
 * is measured (the quota read runs beside the engine's count, so the phases overlap and need not add up).
 */
const phases = new Map<string, number[]>();
let recording = false;
function timedPhase<A extends unknown[], R>(phase: string, fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    const started = performance.now();
    try {
      return await fn(...args);
    } finally {
      if (recording) phases.set(phase, [...(phases.get(phase) ?? []), performance.now() - started]);
    }
  };
}
/** The store with its calls timed: the quota event's transaction, the per-minute slot, other reads (the quota's). */
function timedDb(db: Db): Db {
  return {
    ...db,
    query: timedPhase("store read (quota)", db.query.bind(db)),
    relaxed: { query: timedPhase("store relaxed write (per-minute slot)", db.relaxed.query.bind(db.relaxed)) },
    transaction: timedPhase("store transaction (quota event)", db.transaction.bind(db)),
  } as Db;
}
/** The engine with its counting and search calls timed (the HTTP round trip included, on OpenSearch). */
function timedEngine(engine: SearchEngine): SearchEngine {
  return {
    ...engine,
    facetCounts: timedPhase("engine facetCounts", engine.facetCounts.bind(engine)),
    search: timedPhase("engine search (ranked list)", engine.search.bind(engine)),
  };
}

const percentile = (xs: number[], p: number) =>
  Math.round([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]! * 100) / 100;
async function timed(label: string, run: () => Promise<unknown>, n = runs) {
  if (n === 0) return null;
  if (n === runs) await run(); // warm-up (not for the slow figures)
  const times: number[] = [];
  phases.clear();
  recording = true;
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  recording = false;
  const byPhase = Object.fromEntries(
    [...phases].map(([phase, ms]) => [phase, { p50Ms: percentile(ms, 0.5), calls: ms.length / n }]),
  );
  const figure = { p50Ms: percentile(times, 0.5), p95Ms: percentile(times, 0.95), n, phases: byPhase };
  console.log(`${engineKind}, ${chunks} chunks (${shape}): ${label} p50 ${figure.p50Ms} ms (p95 ${figure.p95Ms})`);
  for (const [phase, f] of Object.entries(byPhase)) console.log(`  ${phase}: p50 ${f.p50Ms} ms (${f.calls} a request)`);
  return figure;
}

/**
 * p50 and p95 of OpenSearch's `took` for the facets' aggregation request (facetAggregationBody, people counted by
 * person), over `runs` requests after a warm-up.
 */
async function took(on: OpenSearchNode, facets: EngineFacet[]) {
  const body = JSON.stringify(facetAggregationBody(undefined, facets, 10, "by person"));
  const once = async () => {
    const response = await fetch(`${on.url}/facets-scale-${SCALE_INDEX}/_search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return ((await response.json()) as { took: number }).took;
  };
  await once();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await once());
  const figure = { p50Ms: percentile(times, 0.5), p95Ms: percentile(times, 0.95), n: runs };
  console.log(
    `${engineKind}, ${chunks} chunks (${shape}): OpenSearch took, ${facets.join("+")}: p50 ${figure.p50Ms} ms`,
  );
  return figure;
}

const config = benchConfig();
const catalog = await loadCollectionCatalog(config.collectionsConfig);
const scifact = catalog.collections.find((c) => c.name === "scifact")!;
/** a sparse collection (--sparse) holds no vectors: its chunks are written without them, its query is BM25 */
const sparse = args.sparse === true;
const shape = sparse ? "sparse" : "hybrid";
const generated: PlainCollection = {
  ...scifact,
  name: SCALE_INDEX,
  ...(sparse ? { retrieval: "sparse" as const } : {}),
};
const scaleCatalog: CollectionCatalog = {
  collections: [generated],
  metaCollections: [],
  resolveCollection: (name) => (name.toLowerCase() === SCALE_INDEX ? generated : null),
  physicalMembers: () => [generated],
  priceRange: () => null,
};
const workDir = join(BENCH_DIR, "facets-scale");
mkdirSync(workDir, { recursive: true });
// the loaded index and works, kept across runs (named by engine, size and generator; --drop removes it after the run):
// a directory without its loaded.json was interrupted while loading and is loaded again
const cacheKey = createHash("sha256").update(FACETS_GENERATOR).digest("hex").slice(0, 8);
const home = join(workDir, `${engineKind}-${chunks}-${sparse ? "sparse-" : ""}${cacheKey}`);
const loadedFile = join(home, "loaded.json");
/** the loaded index: its works' count and one author the lookups ask for */
interface Loaded {
  indexSeconds: number;
  works: number;
  someone: Authorship;
}
const cached: Loaded | null = existsSync(loadedFile) ? (JSON.parse(readFileSync(loadedFile, "utf8")) as Loaded) : null;
if (!cached) rmSync(home, { recursive: true, force: true });
mkdirSync(home, { recursive: true });
/** the works written to this store (a store without its file is written again: one transaction replaces them all) */
const storeFile = join(home, `works-${store}.json`);
const storeCached =
  cached && existsSync(storeFile) ? (JSON.parse(readFileSync(storeFile, "utf8")) as { worksSeconds: number }) : null;
console.error(
  `[facets-scale] ${cached ? "reusing" : "loading"} ${home} (works in ${store}${storeCached ? ", reused" : ""})`,
);
const source = await loadScaleSource({ sources: 300, queries: 1, workDir });
let node: OpenSearchNode | undefined;
const engine: SearchEngine =
  engineKind === "embedded"
    ? createEmbeddedEngine({ dir: join(home, "index") })
    : await (async () => {
        const component = readComponent("opensearch", cacheDirFrom(process.env));
        node = await startOpenSearchNode({
          dataDir: join(home, "node"),
          component,
          startTimeoutMs: 300_000,
          heap: args.heap,
        });
        return createOpenSearchEngine({ url: node.url, indexPrefix: "facets-scale-", bulkBatchSize: LOAD_BULK });
      })();
const embedder = await openEmbedder(config);
let server: PostgresServer | undefined;
const db: Db =
  store === "pglite"
    ? await openPglite(join(home, "pglite"), FEATURE_PROJECTORS)
    : await (async () => {
        server = await startPostgresServer({
          dataDir: join(home, "postgres"),
          component: readComponent("postgres", cacheDirFrom(process.env)),
        });
        return openPostgres(server.url, FEATURE_PROJECTORS, 4);
      })();
const loadBefore = loadavg()[0]!;
/** the first chunk of each work, as the load generates it (the works' source) */
const firstChunks: ChunkRecord[] = [];
/**
 * The load: generated vectors (no embedding model) straight through the adapter's bulk path, the next batches generated
 * while the engine writes (LOAD_IN_FLIGHT bulk calls at once on OpenSearch, one on the embedded engine), on OpenSearch
 * an asynchronous translog while loading and commit's force-merge into one segment at the end.
 */
async function loadIndex(): Promise<number> {
  const started = performance.now();
  await engine.ensureIndex(SCALE_INDEX, source.dims);
  const inFlight = new Set<Promise<void>>();
  const most = engineKind === "opensearch" ? LOAD_IN_FLIGHT : 1;
  const withMetadata: SearchEngine = {
    ...engine,
    indexChunks: async (index, batch) => {
      const chunksWith = batch.map((c) => facetMetadata(sparse ? { ...c, vector: undefined } : c));
      for (const c of chunksWith) if (c.metadata.chunk_index === 0) firstChunks.push({ ...c, vector: undefined });
      while (inFlight.size >= most) await Promise.race(inFlight);
      const call: Promise<void> = engine.indexChunks(index, chunksWith).then(() => void inFlight.delete(call));
      inFlight.add(call);
    },
    commit: async (index) => {
      await Promise.all(inFlight);
      await engine.commit(index);
    },
  };
  await loadSettings(node, "async");
  await indexGenerated(withMetadata, source, chunks, new ExactTopTen(source.vectors, source.dims));
  await loadSettings(node, "request");
  return Math.round((performance.now() - started) / 100) / 10;
}

/** The generated works' first chunks again, without indexing (the index was loaded by an earlier run). */
async function generateFirstChunks(): Promise<void> {
  const collect: SearchEngine = {
    ...engine,
    indexChunks: async (_index, batch) => {
      for (const c of batch.map((c) => facetMetadata({ ...c, vector: undefined })))
        if (c.metadata.chunk_index === 0) firstChunks.push(c);
    },
    commit: async () => {},
  };
  await indexGenerated(collect, source, chunks, new ExactTopTen(source.vectors, source.dims));
}

/** The works, written to the store as ingestion writes them (the first chunk of each): seconds taken. */
async function loadWorks(): Promise<{ worksSeconds: number; someone: Authorship; works: number }> {
  if (firstChunks.length === 0) await generateFirstChunks();
  const started = performance.now();
  const works = firstChunks.map((c) =>
    workOfDocument(
      { doc_id: c.metadata.doc_id, title: null, sections: [], metadata: c.metadata as DocumentMetadata },
      true,
    ),
  );
  firstChunks.length = 0;
  await replaceWorks(db, manifestKey(engineKind!, SCALE_INDEX), works);
  const worksSeconds = Math.round((performance.now() - started) / 100) / 10;
  console.error(`[facets-scale] ${engineKind}: works written to ${store} in ${worksSeconds} s`);
  writeFileSync(storeFile, JSON.stringify({ worksSeconds }));
  const someone = works.find((w) => w.fields.authorships[0]?.id)!.fields.authorships[0]!;
  return { worksSeconds, someone, works: works.length };
}

/** The index (loaded once a size and kind) and the store's works (written once a store), each reused when kept. */
async function load(): Promise<Loaded & { worksSeconds: number }> {
  if (cached && storeCached) return { ...cached, ...storeCached };
  const indexSeconds = cached ? cached.indexSeconds : await loadIndex();
  if (!cached) console.error(`[facets-scale] ${engineKind}: indexed in ${indexSeconds} s`);
  const written = await loadWorks();
  const loaded: Loaded = { indexSeconds, works: written.works, someone: written.someone };
  if (!cached) writeFileSync(loadedFile, JSON.stringify(loaded));
  return { ...loaded, worksSeconds: written.worksSeconds };
}

/**
 * Whether the engine's counts of the six facets equal the same works listed and counted in Node (bucket for bucket).
 */
async function countsEqualListed(): Promise<boolean> {
  const six = ["publication_year", "journal", "subject", "author", "article_type", "open_access"] as const;
  const listed = await engine.listDocuments(SCALE_INDEX, undefined, FACET_FIELDS);
  const engineCounts = await engine.facetCounts(SCALE_INDEX, undefined, six, 10);
  const nodeCounts = countFacets(
    listed.map((metadata) => ({ physical: SCALE_INDEX, metadata })),
    six,
    10,
  );
  const sameCounts = JSON.stringify(engineCounts) === JSON.stringify(nodeCounts);
  console.log(
    `${engineKind}, ${chunks} chunks (${shape}): engine counts equal the listed works' counts: ${sameCounts}`,
  );
  listed.length = 0;
  return sameCounts;
}

try {
  await migrate(db, PROJECTION_READ_MODELS);
  const { indexSeconds, worksSeconds, works: workCount, someone } = await load();

  const auth = UNLIMITED_BENCH_AUTH;
  const noIntegrity = async (refs: readonly unknown[]) =>
    refs.map(() => ({ status: "none" as const, notices: [], listsChecked: false }));
  // the works a notice may name, as the service reads them: the works table's notices (none here) and the shipped
  // retraction lists, so the integrity facet reads the collection's works' DOIs and looks each up in the lists
  const retractions = createLiveRetractions({ db, dataRoot: config.dataRoot, engineKind: engine.kind });
  const facetsApi = createWorkFacets({
    search: { catalog: scaleCatalog, engine: timedEngine(engine), embedder },
    db: timedDb(db),
    integrity: noIntegrity,
    noticed: noticedWorksOf({ db: timedDb(db), engineKind: engine.kind, retractions }),
    clock: () => new Date(),
  });
  const worksApi = createWorks({
    db,
    catalog: scaleCatalog,
    engineKind,
    integrity: noIntegrity,
    rowIntegrity: noIntegrity,
    clock: () => new Date(),
  });
  const authorsApi = createAuthors({ db, works: worksApi });
  const request = (facets: FacetsRequest["facets"], query?: string): FacetsRequest => ({
    collections: [SCALE_INDEX],
    facets,
    limit: 10,
    ...(query !== undefined ? { query } : {}),
  });
  // a query the generated works answer: the title of the first replicated abstract (its copies are repeats, which the
  // ranked list demotes under the threshold, so this measures the ranked list of 500 chunks and counts few works)
  const query = String(source.sources[0]!.metadata.title);
  const totals = {
    collection: (await facetsApi.facets(auth, request(["publication_year"]))).total,
    query: (await facetsApi.facets(auth, request(["publication_year"], query))).total,
  };
  const six = ["publication_year", "journal", "subject", "author", "article_type", "open_access"] as const;
  // the engine's counts (aggregation, per-work table) against the same works listed and counted in Node
  const sameCounts = args["skip-check"] ? null : await countsEqualListed();
  const result = {
    engine: engineKind,
    chunks,
    collection: shape,
    works: workCount,
    store,
    cached: cached !== null,
    storeCached: storeCached !== null,
    indexSeconds,
    worksSeconds,
    facets: {
      // the engine's part of a request without a query: the documents it hands over
      listDocuments: await timed(
        "the engine's listDocuments (every work, the facets' fields)",
        () => engine.listDocuments(SCALE_INDEX, undefined, FACET_FIELDS),
        slowRuns,
      ),
      sameCounts,
      yearAndJournal: await timed("facets year+journal, no query", () =>
        facetsApi.facets(auth, request(["publication_year", "journal"])),
      ),
      sixFacets: await timed("facets, six facets (all but integrity), no query", () =>
        facetsApi.facets(auth, request([...six])),
      ),
      authorFacet: await timed("facets, the author facet, no query", () => facetsApi.facets(auth, request(["author"]))),
      integrityFacet: await timed("facets, the integrity facet (the works a notice may name listed), no query", () =>
        facetsApi.facets(auth, request(["integrity"])),
      ),
      yearAndJournalQuery: await timed("facets year+journal with a query", () =>
        facetsApi.facets(auth, request(["publication_year", "journal"], query)),
      ),
      worksCounted: totals,
    },
    // OpenSearch's own time (`took`) for the aggregation request of each figure without a query, beside the service's
    engineTook: node
      ? {
          yearAndJournal: await took(node, ["publication_year", "journal"]),
          sixFacets: await took(node, [...six]),
          authorFacet: await took(node, ["author"]),
        }
      : null,
    authors: {
      profile: await timed("GET /authors/{id}", () => authorsApi.get(auth, someone.id!)),
      name: await timed("GET /authors?name=", () => authorsApi.search(auth, { name: someone.name, limit: 20 })),
      works: await timed("GET /authors/{id}/works", () => authorsApi.works(auth, someone.id!, { limit: 20 })),
    },
    cpu: cpus()[0]?.model ?? "unknown",
    loadAverage: { before: loadBefore, after: loadavg()[0]! },
  };
  console.log(JSON.stringify(result));
} finally {
  await db.close();
  await engine.close();
  await embedder.close();
  await node?.stop();
  await server?.stop();
  if (args.drop) rmSync(home, { recursive: true, force: true });
}
