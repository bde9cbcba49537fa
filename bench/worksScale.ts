// The works bench at scale (npm run bench:works -- --generated 1000000 --store postgres [--drop]): N generated works
// (bench/worksGenerated.ts) in a PostgreSQL server whose cluster is kept under data/bench/works-postgres-<N> (a rerun
// starts it and skips the load; --drop removes it first), then each read the works routes make, through the works and
// authors use cases as the routes call them: one work by DOI and by OpenAlex id, a batch of 100 ids (a tenth unknown),
// a work's references page, a heavily cited work's cited-by page (the first and a deep cursor page), an author's works
// page, and the integrity facet's read of the works table for a query's 200 works. p50 and p95 of each, as JSON and
// readable lines. The works stand in openalex-synergy's index key, so the service's catalogue reaches them.
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/app/config.js";
import { loadCollectionCatalog } from "../src/app/collectionsFile.js";
import { openPostgres, type Db } from "../src/eventstore/db.js";
import { migrate } from "../src/eventstore/schema.js";
import { FEATURE_PROJECTORS, PROJECTION_READ_MODELS } from "../src/app/projectors.js";
import { manifestKey } from "../src/ingest/manifest.js";
import { createLiveRetractions } from "../src/ingest/liveRetractions.js";
import { createWorks } from "../src/usecases/works/works.js";
import { integrityOfWorks } from "../src/usecases/works/integrityRows.js";
import { createAuthors } from "../src/usecases/authors/authors.js";
import { listCursorOf } from "../src/domain/cursors.js";
import { readComponent } from "../src/infra/components.js";
import { startPostgresServer } from "../src/infra/postgresServer.js";
import { UNLIMITED_BENCH_AUTH } from "./benchAuth.js";
import { citedRank, generatedIds, generatedWork, loadGenerated, seeded, workOfRank } from "./worksGenerated.js";

export interface ScaleArgs {
  generated: number;
  drop: boolean;
  repeats: number;
  /** timed cited-by pages of each kind (a heavily cited work's page is the slowest read) */
  citedRepeats: number;
}

type Catalog = Awaited<ReturnType<typeof loadCollectionCatalog>>;

type Figures = { n: number; p50Ms: number; p95Ms: number };

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const round = (ms: number) => Math.round(ms * 100) / 100;
const figuresOf = (xs: number[]): Figures => ({
  n: xs.length,
  p50Ms: round(percentile(xs, 0.5)),
  p95Ms: round(percentile(xs, 0.95)),
});

/** Times `run` `repeats` times after `warm` untimed runs; each run draws its own input. */
async function timed(repeats: number, warm: number, run: (i: number) => Promise<unknown>): Promise<Figures> {
  const times: number[] = [];
  for (let i = 0; i < warm + repeats; i++) {
    const started = performance.now();
    await run(i);
    if (i >= warm) times.push(performance.now() - started);
  }
  return figuresOf(times);
}

/** The store: loaded once (its size and timings kept in bench_generated), reused while its cluster stays. */
async function openLoaded(db: Db, indexKey: string, n: number, dir: string) {
  await migrate(db, PROJECTION_READ_MODELS);
  await db.query(
    "CREATE TABLE IF NOT EXISTS bench_generated (n INTEGER NOT NULL, rows_seconds REAL NOT NULL, " +
      "index_seconds REAL NOT NULL)",
  );
  const [row] = await db.query<{ n: number }>("SELECT n FROM bench_generated");
  if (row && Number(row.n) === n) return null;
  const started = performance.now();
  let last = 0;
  const migrateAgain = async () => {
    await db.query("DELETE FROM schema_version");
    await migrate(db, PROJECTION_READ_MODELS);
  };
  const timings = await loadGenerated(db, { indexKey, n, dir: join(dir, "load"), migrateAgain }, (done) => {
    if (done - last >= 100_000 || done === n) {
      last = done;
      console.error(`loaded ${done} works in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  });
  await db.query("DELETE FROM bench_generated");
  await db.query("INSERT INTO bench_generated (n, rows_seconds, index_seconds) VALUES ($1, $2, $3)", [
    n,
    timings.rowsSeconds,
    timings.indexSeconds,
  ]);
  return { rowsSeconds: Math.round(timings.rowsSeconds), indexSeconds: Math.round(timings.indexSeconds) };
}

export async function runScale(args: ScaleArgs): Promise<void> {
  const n = args.generated;
  const config = loadConfig(process.env);
  const catalog = await loadCollectionCatalog(config.collectionsConfig);
  const dir = join("data", "bench", `works-postgres-${n}`);
  if (args.drop) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const reused = existsSync(join(dir, "pgdata", "PG_VERSION"));
  const server = await startPostgresServer({ dataDir: dir, component: readComponent("postgres", config.cacheDir) });
  const db = await openPostgres(server.url, FEATURE_PROJECTORS, 4);
  try {
    // index builds of the load sort in memory: the bench's own server, nobody else's setting
    await db.query("ALTER SYSTEM SET maintenance_work_mem = '512MB'");
    await db.query("SELECT pg_reload_conf()");
    const indexKey = manifestKey("embedded", "openalex-synergy");
    const load = await openLoaded(db, indexKey, n, dir);
    const [size] = await db.query<{ works: string; edges: string; bytes: string }>(
      `SELECT (SELECT count(*) FROM works) AS works, (SELECT count(*) FROM work_references) AS edges,
         pg_database_size(current_database()) AS bytes`,
    );
    const figures = await measure(db, catalog, n, args);
    const result = {
      store: "postgres",
      works: Number(size!.works),
      edges: Number(size!.edges),
      databaseGb: Math.round(Number(size!.bytes) / 1e8) / 10,
      load,
      reused: reused && load === null,
      ...figures,
      loadAverage: loadavg()[0],
    };
    console.log(JSON.stringify(result));
    const line = (name: string, f: Figures) => `${name} p50 ${f.p50Ms} ms (p95 ${f.p95Ms})`;
    console.log(
      `works at ${result.works} (PostgreSQL, ${result.edges} edges, ${result.databaseGb} GB): ` +
        [
          line("by DOI", figures.byDoi),
          line("by OpenAlex id", figures.byOpenalex),
          line("a batch of 100", figures.batch100),
          line("references page", figures.references),
          line(`cited-by first page (${figures.citedByHeld} citing)`, figures.citedByFirst),
          line("cited-by deep page", figures.citedByDeep),
          line("an author's works page", figures.authorWorks),
          line("integrity facet of 200 works", figures.integrity200),
        ].join("; ") +
        `; load average ${result.loadAverage.toFixed(1)}`,
    );
  } finally {
    await db.close();
    await server.stop();
  }
}

async function measure(db: Db, catalog: Catalog, n: number, args: ScaleArgs) {
  const k = args.repeats;
  const retractions = createLiveRetractions({ db, dataRoot: "demo-data" });
  await retractions.integrity([]);
  const rowIntegrity = integrityOfWorks({ db, engineKind: "embedded", retractions });
  const api = createWorks({
    db,
    catalog,
    engineKind: "embedded",
    integrity: (dois) => retractions.integrity(dois),
    rowIntegrity,
    clock: () => new Date(),
  });
  const authors = createAuthors({ db, works: api });
  const auth = UNLIMITED_BENCH_AUTH;
  const random = seeded(42);
  const any = () => Math.floor(random() * n);
  const idOf = () => (random() < 0.1 ? `10.9999/unknown.${any()}` : generatedIds(any()).doi);
  // a heavily cited work: among the 30 most cited (thousands of citations each at a million)
  const heavy = () => generatedIds(workOfRank(5 + Math.floor(random() * 25), n)).openalex;
  const first = await api.citedBy(auth, heavy(), { limit: 20 });
  const deepOffset = Math.floor(first.coverage.held / 2 / 20) * 20;
  const deepCursors = await deepCursorsOf(db, n, deepOffset);
  const author = () => generatedWork(any(), n).fields.authorships[0]!.id!;
  const prolific = () => generatedWork(workOfRank(citedRank(random(), n), n), n).fields.authorships[0]!.id!;
  const cited = args.citedRepeats;
  const runs = {
    byDoi: () => timed(k, 10, () => api.get(auth, generatedIds(any()).doi)),
    byOpenalex: () => timed(k, 10, () => api.get(auth, generatedIds(any()).openalex)),
    batch100: () => timed(Math.ceil(k / 5), 3, () => api.batch(auth, Array.from({ length: 100 }, idOf))),
    references: () => timed(k, 10, () => api.references(auth, generatedIds(any()).openalex, { limit: 20 })),
    citedByFirst: () => timed(cited, 1, () => api.citedBy(auth, heavy(), { limit: 20 })),
    citedByDeep: () =>
      timed(cited, 1, async () => {
        const work = heavy();
        // a work cited less than the first: its deep cursor is past its last work, an empty page
        return api.citedBy(auth, work, { limit: 20, cursor: deepCursors.get(work) });
      }),
    authorWorks: () => timed(k, 10, (i) => authors.works(auth, i % 2 ? author() : prolific(), { limit: 20 })),
    integrity200: () =>
      timed(k, 5, () =>
        rowIntegrity(Array.from({ length: 200 }, () => ({ doi: generatedIds(any()).doi, pmid: null }))),
      ),
  };
  const figures = {} as Record<keyof typeof runs, Figures>;
  for (const [name, run] of Object.entries(runs) as [keyof typeof runs, () => Promise<Figures>][]) {
    figures[name] = await run();
    // each as it is measured: a long run's first figures survive its interruption
    console.error(`${name}: ${JSON.stringify(figures[name])}`);
  }
  return { citedByHeld: first.coverage.held, ...figures };
}

/**
 * The cursor a client holds after paging to `offset` of each heavily cited work's list (the place of its work there,
 * or of its last work where it has fewer), as the cited-by page writes it: read from the citing index, untimed.
 */
async function deepCursorsOf(db: Db, n: number, offset: number): Promise<Map<string, string>> {
  const cursors = new Map<string, string>();
  for (let rank = 5; rank < 30; rank++) {
    const work = generatedIds(workOfRank(rank, n)).openalex;
    const [place] = await db.query<{ citing_date: string; citing_key: string; index_key: string; doc_id: string }>(
      `SELECT * FROM (SELECT DISTINCT citing_date, citing_key, index_key, doc_id FROM work_references
         WHERE openalex IS NOT NULL AND openalex = $1 ORDER BY citing_date DESC, citing_key, index_key, doc_id
         LIMIT $2) AS d ORDER BY citing_date, citing_key DESC, index_key DESC, doc_id DESC LIMIT 1`,
      [work, offset],
    );
    if (!place) continue;
    const after: [string, string, string, string] = [
      place.citing_date,
      place.citing_key,
      place.index_key,
      place.doc_id,
    ];
    cursors.set(work, listCursorOf({ list: "cited-by", work, offset, after }));
  }
  return cursors;
}
