// Works lookups: the p50 and p95 of one work by DOI and of a batch of 100 (random DOIs of the demo's OpenAlex works, a
// tenth of them unknown), through the works use case (as GET /works/{id} and POST /works/batch run it, per-minute
// budget, integrity and citation counts included) over an embedded store (PGlite) holding the works and edges of
// openalex-synergy as ingestion writes them. Reads the collection through the configured data root. Then works facets
// (POST /works/facets as its use case runs it, the quota query's event included) on openalex-synergy in the bench's
// embedded engine (built under data/bench on the first run, from the shipped vectors, then reused): every facet over
// the whole collection, and year and journal over a query's relevant works. Then author lookups as GET /authors/{id},
// GET /authors?name= and GET /authors/{id}/works run them (random OpenAlex author ids and family names of the same
// works). Prints JSON and readable lines. The same at scale, on both engines: bench/facetsScale.ts.
// Usage: npm run bench:works [-- --lookups 300] [--batches 30] [--facets 30] [--authors 100]
// At scale, in PostgreSQL (bench/worksScale.ts): npm run bench:works -- --generated 1000000 --store postgres
//   [--repeats 100] [--cited-repeats 20] [--drop]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/app/config.js";
import { loadCollectionCatalog } from "../src/app/collectionsFile.js";
import { openPglite } from "../src/eventstore/db.js";
import { migrate } from "../src/eventstore/schema.js";
import { FEATURE_PROJECTORS, PROJECTION_READ_MODELS } from "../src/app/projectors.js";
import { readCollectionDocuments } from "../src/ingest/readCollection.js";
import { manifestKey } from "../src/ingest/manifest.js";
import { workOfDocument, type StoredWork } from "../src/ingest/works.js";
import { replaceWorks } from "./replaceWorks.js";
import { createLiveRetractions } from "../src/ingest/liveRetractions.js";
import { createWorks } from "../src/usecases/works/works.js";
import { integrityOfWorks } from "../src/usecases/works/integrityRows.js";
import { createWorkFacets } from "../src/usecases/works/workFacets.js";
import { createAuthors } from "../src/usecases/authors/authors.js";
import { FACETS } from "../src/usecases/works/facetCounts.js";
import { openEmbedder } from "../src/app/composition.js";
import { createEmbeddedEngine } from "../src/retrieval/engines/embedded/embeddedEngine.js";
import { benchConfig, ingestBenchCollection } from "./scifactBench.js";
import { UNLIMITED_BENCH_AUTH } from "./benchAuth.js";
import { runScale } from "./worksScale.js";

const { values: args } = parseArgs({
  options: {
    lookups: { type: "string", default: "300" },
    batches: { type: "string", default: "30" },
    facets: { type: "string", default: "30" },
    authors: { type: "string", default: "100" },
    generated: { type: "string" },
    store: { type: "string", default: "pglite" },
    repeats: { type: "string", default: "100" },
    "cited-repeats": { type: "string", default: "20" },
    drop: { type: "boolean", default: false },
  },
});

if (args.generated !== undefined) {
  const generated = Number(args.generated);
  if (!Number.isInteger(generated) || generated < 1000 || args.store !== "postgres")
    throw new Error("--generated takes a whole number of works, at least 1000, with --store postgres");
  await runScale({
    generated,
    drop: args.drop,
    repeats: Number(args.repeats),
    citedRepeats: Number(args["cited-repeats"]),
  });
  process.exit(0);
}

const config = loadConfig(process.env);
const catalog = await loadCollectionCatalog(config.collectionsConfig);
const collection = catalog.collections.find((c) => c.name === "openalex-synergy");
if (!collection) throw new Error("the collections configuration has no openalex-synergy");
const dir = mkdtempSync(join(tmpdir(), "bench-works-"));
const db = await openPglite(join(dir, "pglite"), FEATURE_PROJECTORS);
try {
  await migrate(db, PROJECTION_READ_MODELS);
  const works: StoredWork[] = [];
  for await (const item of readCollectionDocuments(collection, config.dataRoot))
    if (!("deleted" in item)) works.push(workOfDocument(item, true));
  let started = performance.now();
  await replaceWorks(db, manifestKey("embedded", collection.name), works);
  const writeSeconds = (performance.now() - started) / 1000;
  const edges = works.reduce((n, w) => n + w.references.length, 0);

  const retractions = createLiveRetractions({ db, dataRoot: config.dataRoot });
  await retractions.integrity([]);
  const api = createWorks({
    db,
    catalog,
    engineKind: "embedded",
    integrity: (dois) => retractions.integrity(dois),
    rowIntegrity: integrityOfWorks({ db, engineKind: "embedded", retractions }),
    clock: () => new Date(),
  });
  const auth = UNLIMITED_BENCH_AUTH;

  const dois = works.flatMap((w) => (w.doi ? [w.doi] : []));
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = () =>
    random() < 0.1 ? `10.9999/unknown.${Math.floor(random() * 1e6)}` : dois[Math.floor(random() * dois.length)]!;
  const percentile = (xs: number[], p: number) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  const round = (ms: number) => Math.round(ms * 100) / 100;

  // warm-up: the first statements plan and compile
  for (let i = 0; i < 20; i++) await api.batch(auth, [pick(), pick()]);

  const one: number[] = [];
  for (let i = 0; i < Number(args.lookups); i++) {
    started = performance.now();
    await api.get(auth, pick()).catch(() => undefined);
    one.push(performance.now() - started);
  }
  const batch: number[] = [];
  for (let i = 0; i < Number(args.batches); i++) {
    const ids = Array.from({ length: 100 }, pick);
    started = performance.now();
    await api.batch(auth, ids);
    batch.push(performance.now() - started);
  }
  // author lookups: an author's profile, a name search and the author's works, as the three routes run them
  const authorsApi = createAuthors({ db, works: api });
  const authorIds = [...new Set(works.flatMap((w) => w.fields.authorships.flatMap((a) => (a.id ? [a.id] : []))))];
  const familyName = (name: string) => name.split(" ").at(-1)!;
  const familyNames = [
    ...new Set(works.flatMap((w) => w.fields.authorships.map((a) => familyName(a.name)).filter((n) => n.length > 2))),
  ];
  const authorTimes = { profile: [] as number[], name: [] as number[], works: [] as number[] };
  const pickOf = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  for (let i = 0; i < Number(args.authors) + 10; i++) {
    const id = pickOf(authorIds);
    const name = pickOf(familyNames);
    const runs = [
      ["profile", () => authorsApi.get(auth, id)],
      ["name", () => authorsApi.search(auth, { name, limit: 20 })],
      ["works", () => authorsApi.works(auth, id, { limit: 20 })],
    ] as const;
    for (const [kind, run] of runs) {
      started = performance.now();
      await run();
      // the first ten of each: warm-up
      if (i >= 10) authorTimes[kind].push(performance.now() - started);
    }
  }
  // facets: the collection in the bench's embedded engine, as the service searches it
  const facetsConfig = benchConfig();
  const embedder = await openEmbedder(facetsConfig);
  const engine = createEmbeddedEngine({ dir: join(facetsConfig.dataDir, "index") });
  const facetTimes = { collection: [] as number[], query: [] as number[] };
  const facetWorks = { collection: 0, query: 0 };
  try {
    await ingestBenchCollection(facetsConfig, embedder, engine, collection.name);
    const facetsApi = createWorkFacets({
      search: { catalog, engine, embedder },
      db,
      integrity: integrityOfWorks({ db, engineKind: "embedded", retractions }),
      clock: () => new Date(),
    });
    const requests = {
      collection: { collections: [collection.name], facets: [...FACETS], limit: 10 },
      query: {
        collections: [collection.name],
        query: "hair cortisol as a marker of chronic stress",
        facets: ["publication_year" as const, "journal" as const],
        limit: 10,
      },
    };
    for (const kind of ["collection", "query"] as const) {
      facetWorks[kind] = (await facetsApi.facets(auth, requests[kind])).total;
      for (let i = 0; i < Number(args.facets); i++) {
        started = performance.now();
        await facetsApi.facets(auth, requests[kind]);
        facetTimes[kind].push(performance.now() - started);
      }
    }
  } finally {
    await engine.close();
    await embedder.close();
  }
  const facetFigures = (kind: "collection" | "query") => ({
    n: facetTimes[kind].length,
    works: facetWorks[kind],
    p50Ms: round(percentile(facetTimes[kind], 0.5)),
    p95Ms: round(percentile(facetTimes[kind], 0.95)),
  });
  const result = {
    facets: { collection: facetFigures("collection"), query: facetFigures("query") },
    works: works.length,
    edges,
    writeSeconds: round(writeSeconds),
    lookup: { n: one.length, p50Ms: round(percentile(one, 0.5)), p95Ms: round(percentile(one, 0.95)) },
    batch100: { n: batch.length, p50Ms: round(percentile(batch, 0.5)), p95Ms: round(percentile(batch, 0.95)) },
    authors: Object.fromEntries(
      (["profile", "name", "works"] as const).map((kind) => [
        kind,
        {
          n: authorTimes[kind].length,
          p50Ms: round(percentile(authorTimes[kind], 0.5)),
          p95Ms: round(percentile(authorTimes[kind], 0.95)),
        },
      ]),
    ) as Record<"profile" | "name" | "works", { n: number; p50Ms: number; p95Ms: number }>,
    authorIds: authorIds.length,
    loadAverage: loadavg()[0],
  };
  console.log(JSON.stringify(result));
  console.log(
    `works (PGlite, ${result.works} OpenAlex works, ${result.edges} edges written in ${result.writeSeconds} ` +
      `s): one lookup p50 ${result.lookup.p50Ms} ms (p95 ${result.lookup.p95Ms}), a batch of 100 p50 ` +
      `${result.batch100.p50Ms} ms (p95 ${result.batch100.p95Ms}); load average ${result.loadAverage.toFixed(1)}`,
  );
  const { profile, name, works: authorWorks } = result.authors;
  console.log(
    `authors (PGlite, ${result.authorIds} OpenAlex author ids): GET /authors/{id} p50 ${profile.p50Ms} ms (p95 ` +
      `${profile.p95Ms}), ?name= p50 ${name.p50Ms} ms (p95 ${name.p95Ms}), /{id}/works p50 ${authorWorks.p50Ms} ms ` +
      `(p95 ${authorWorks.p95Ms})`,
  );
  console.log(
    `works facets (embedded engine, ${collection.name}): all ${FACETS.length} facets over the collection ` +
      `(${result.facets.collection.works} works) p50 ${result.facets.collection.p50Ms} ms (p95 ` +
      `${result.facets.collection.p95Ms}); year and journal over a query's relevant works ` +
      `(${result.facets.query.works}) p50 ${result.facets.query.p50Ms} ms (p95 ${result.facets.query.p95Ms})`,
  );
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
