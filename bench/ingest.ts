// Ingestion benchmark through the ingestion workflow (Temporal, the event store, the real embedding model): documents
// per second of a full build of generated sparse and hybrid collections, an upsert of a snapshot with 1% changed and
// 0.1% deleted documents against the full build, and hybrid search p50 idle and during that upsert. Prints JSON, then
// a table.
// Usage: npm run bench:ingest [-- --sparse 100000] [--hybrid 20000] [--searches 40] [--engines embedded,opensearch]
//   opensearch: OPENSEARCH_URL, else a node started here from the provisioned component; one process takes the
//   batches (the service's in-process worker). Two worker processes need the scaled shape (PostgreSQL, OpenSearch and
//   `npm run worker` processes) and are not measured by this script.
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig, type Config } from '../src/app/config.js';
import { readComponent } from '../src/infra/components.js';
import { startOpenSearchNode, type OpenSearchNode } from '../src/infra/opensearchNode.js';
import { startRuntime, type Runtime } from '../src/app/composition.js';
import { waitForIngestion } from '../src/usecases/collections/temporalIngestions.js';
import type { IngestionStatus } from '../src/ingest/ingestions.js';

const { values: args } = parseArgs({
  options: {
    sparse: { type: 'string', default: '100000' },
    hybrid: { type: 'string', default: '20000' },
    searches: { type: 'string', default: '40' },
    engines: { type: 'string', default: 'embedded' },
  },
});

const WORDS = 'coral reef bleaching heatwave symbiont algae parrotfish transect survey seagrass dugong mangrove nursery snapper juvenile cyclone sediment turbidity recovery recruitment larvae spawning lagoon atoll salinity nitrogen phosphate grazing herbivory predator outbreak starfish urchin sponge calcification acidification temperature anomaly monitoring quadrat cover mortality resilience connectivity'.split(' ');

/** A deterministic pseudo-random generator (mulberry32), so every run ingests the same documents. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sentence = (next: () => number, words: number) => Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ') + '.';

function document(n: number, version = 0): Record<string, unknown> {
  const next = random(n * 7919 + version);
  return { id: `doc-${n}`, title: `Survey ${n}: ${sentence(next, 6)}`, text: Array.from({ length: 6 }, () => sentence(next, 14)).join(' '), journal: `Reef Journal ${n % 50}`, publication_date: String(2000 + (n % 25)) };
}

/** The snapshot: every document, 1% in a new version, 0.1% deleted. */
function writeSnapshot(path: string, count: number, changed: boolean): { changed: number; deleted: number } {
  const lines: string[] = [];
  let changes = 0;
  let deletions = 0;
  for (let n = 0; n < count; n++) {
    if (changed && n % 1000 === 500) {
      lines.push(JSON.stringify({ id: `doc-${n}`, deleted: true }));
      deletions += 1;
    } else if (changed && n % 100 === 7) {
      lines.push(JSON.stringify(document(n, 1)));
      changes += 1;
    } else lines.push(JSON.stringify(document(n)));
  }
  writeFileSync(path, lines.join('\n') + '\n');
  return { changed: changes, deleted: deletions };
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : null;
};

async function ingest(runtime: Runtime, collection: string, files: string[], mode: 'upsert' | 'replace'): Promise<{ status: IngestionStatus; seconds: number }> {
  const started = performance.now();
  const { ingestionId } = await runtime.ingestions.start({ collection, files, mode }, { kind: 'operator', id: 'bench' });
  const status = (await waitForIngestion(runtime.ingestions, ingestionId, 200))!;
  if (status.state !== 'completed') throw new Error(`${collection}: ${status.error}`);
  return { status, seconds: (performance.now() - started) / 1000 };
}

async function searchOnce(runtime: Runtime, index: string, query: string): Promise<number> {
  const started = performance.now();
  const vector = await runtime.embedder.embedQuery(query);
  await runtime.engine.search({ index, mode: 'hybrid', text: query, vector, limit: 10 });
  return performance.now() - started;
}

async function main(): Promise<void> {
  const sparse = Number(args.sparse);
  const hybrid = Number(args.hybrid);
  const dir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  // a data root of the real one's entries (journals, retraction lists) beside the generated files
  const dataRoot = join(dir, 'root');
  mkdirSync(dataRoot);
  const realRoot = loadConfig().dataRoot;
  for (const entry of readdirSync(realRoot)) symlinkSync(join(realRoot, entry), join(dataRoot, entry));
  const files = { sparse: 'bench-sparse.jsonl', hybrid: 'bench-hybrid.jsonl', hybridUpdate: 'bench-hybrid-update.jsonl', sparseUpdate: 'bench-sparse-update.jsonl' };
  writeSnapshot(join(dataRoot, files.sparse), sparse, false);
  writeSnapshot(join(dataRoot, files.hybrid), hybrid, false);
  const sparseChanges = writeSnapshot(join(dataRoot, files.sparseUpdate), sparse, true);
  const hybridChanges = writeSnapshot(join(dataRoot, files.hybridUpdate), hybrid, true);
  const plain = (name: string, retrieval: string, file: string) => ({ name, displayName: name, description: null, kind: 'scholarly', retrieval, pricePer1000: '0.010', openAccessOnly: false, scanFilterable: false, excludeRetracted: false, source: { reader: 'jsonl', files: [file] } });
  const collectionsConfig = join(dir, 'collections.json');
  writeFileSync(collectionsConfig, JSON.stringify({ collections: [plain('bench-sparse', 'sparse', files.sparse), plain('bench-hybrid', 'hybrid', files.hybrid)], metaCollections: [] }));
  const base = loadConfig({ ...process.env, DATA_ROOT: dataRoot });
  for (const engine of args.engines.split(',')) {
    let node: OpenSearchNode | undefined;
    let opensearchUrl = '';
    if (engine === 'opensearch') {
      opensearchUrl = base.opensearchUrl ?? '';
      if (!opensearchUrl) {
        node = await startOpenSearchNode({ dataDir: join(dir, 'opensearch'), component: readComponent('opensearch', base.cacheDir) });
        opensearchUrl = node.url;
      }
    }
    try {
      await measure(engine, loadConfig({ ...process.env, DATA_DIR: join(dir, `data-${engine}`), DATA_ROOT: dataRoot, COLLECTIONS_CONFIG: collectionsConfig, OPENSEARCH_URL: opensearchUrl, INGEST_DEMO: '0', LOG_LEVEL: 'warn' }), { files, sparse, hybrid, sparseChanges, hybridChanges });
    } finally {
      await node?.stop();
    }
  }
}

async function measure(
  engineName: string,
  config: Config,
  input: { files: Record<'sparse' | 'hybrid' | 'sparseUpdate' | 'hybridUpdate', string>; sparse: number; hybrid: number; sparseChanges: { changed: number; deleted: number }; hybridChanges: { changed: number; deleted: number } },
): Promise<void> {
  const { files, sparse, hybrid, sparseChanges, hybridChanges } = input;
  const runtime = await startRuntime(config, { worker: true, log: pino({ level: 'warn' }) });
  const load: number[][] = [];
  try {
    load.push(loadavg());
    const sparseFull = await ingest(runtime, 'bench-sparse', [files.sparse], 'replace');
    const hybridFull = await ingest(runtime, 'bench-hybrid', [files.hybrid], 'replace');
    const sparseUpsert = await ingest(runtime, 'bench-sparse', [files.sparseUpdate], 'upsert');
    load.push(loadavg());

    const queries = Array.from({ length: Number(args.searches) }, (_, k) => sentence(random(k + 1), 5));
    const idle: number[] = [];
    for (const q of queries) idle.push(await searchOnce(runtime, 'bench-hybrid', q));
    // searches while the hybrid upsert runs (one after another, as one client would)
    const during: number[] = [];
    let upserting = true;
    const upsert = ingest(runtime, 'bench-hybrid', [files.hybridUpdate], 'upsert').finally(() => (upserting = false));
    for (let k = 0; upserting; k++) during.push(await searchOnce(runtime, 'bench-hybrid', queries[k % queries.length]!));
    const hybridUpsert = await upsert;
    load.push(loadavg());

    const round = (x: number | null) => (x === null ? null : Math.round(x * 100) / 100);
    const result = {
      engine: runtime.engine.kind,
      workerProcesses: 1,
      batchSize: config.ingestBatchSize,
      parallelism: config.ingestParallelism,
      embeddingWorkers: config.embeddingWorkers,
      full: {
        sparse: { documents: sparse, seconds: round(sparseFull.seconds), documentsPerSecond: round(sparse / sparseFull.seconds), chunks: sparseFull.status.chunksIndexed },
        hybrid: { documents: hybrid, seconds: round(hybridFull.seconds), documentsPerSecond: round(hybrid / hybridFull.seconds), chunks: hybridFull.status.chunksIndexed },
      },
      upsert: {
        sparse: { ...sparseChanges, seconds: round(sparseUpsert.seconds), fullSeconds: round(sparseFull.seconds), counts: sparseUpsert.status },
        hybrid: { ...hybridChanges, seconds: round(hybridUpsert.seconds), fullSeconds: round(hybridFull.seconds), counts: hybridUpsert.status },
      },
      searchMs: { idleP50: round(quantile(idle, 0.5)), duringUpsertP50: round(quantile(during, 0.5)), idleSearches: idle.length, duringSearches: during.length },
      loadAverage: load.map((l) => l.map((x) => Math.round(x * 100) / 100)),
    };
    console.log(JSON.stringify(result, null, 2));
    const row = (cells: (string | number | null)[]) => console.log(cells.map((c) => String(c ?? '-').padEnd(16)).join(''));
    row(['measure', 'sparse', 'hybrid']);
    row(['full docs/s', result.full.sparse.documentsPerSecond, result.full.hybrid.documentsPerSecond]);
    row(['full seconds', result.full.sparse.seconds, result.full.hybrid.seconds]);
    row(['upsert seconds', result.upsert.sparse.seconds, result.upsert.hybrid.seconds]);
    row(['search p50 ms', `idle ${result.searchMs.idleP50}`, `upsert ${result.searchMs.duringUpsertP50}`]);
    console.log(`engine ${engineName} (${result.engine}), 1 worker process, load average ${result.loadAverage.map((l) => l[0]).join(' -> ')}`);
  } finally {
    await runtime.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
