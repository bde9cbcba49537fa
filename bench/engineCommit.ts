// Engine-level cost of incremental updates: on a generated sparse index (default 100,000 chunks), the time of a full
// build (stage every chunk, commit) against an upsert commit of 1% changed chunks plus 0.1% deleted ones, the search
// latency while that commit runs against idle, the inventory rebuild after it, and another instance's reload of the new
// generation. Embedded engine always; OpenSearch too with --opensearch (a node started here, on a free port, from the
// provisioned component) or --opensearch-url. Prints JSON, then readable lines.
// Usage: tsx bench/engineCommit.ts [--chunks 100000] [--changed 0.01] [--deleted 0.001] [--opensearch |
// --opensearch-url URL] [--only-opensearch]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cacheDirFrom } from "../src/app/config.js";
import { readComponent } from "../src/infra/components.js";
import { startOpenSearchNode, type OpenSearchNode } from "../src/infra/opensearchNode.js";
import { createEmbeddedEngine } from "../src/retrieval/engines/embedded/embeddedEngine.js";
import { createOpenSearchEngine } from "../src/retrieval/engines/opensearch/openSearchEngine.js";
import type { ChunkRecord, SearchEngine } from "../src/retrieval/port.js";

const { values: args } = parseArgs({
  options: {
    chunks: { type: "string", default: "100000" },
    changed: { type: "string", default: "0.01" },
    deleted: { type: "string", default: "0.001" },
    "opensearch-url": { type: "string" },
    opensearch: { type: "boolean", default: false },
    "only-opensearch": { type: "boolean", default: false },
  },
});
const CHUNKS = Number(args.chunks);
const CHANGED = Math.round(CHUNKS * Number(args.changed));
const DELETED = Math.round(CHUNKS * Number(args.deleted));
const INDEX = "bench-commit";
const QUERIES = [
  "insulin resistance obesity",
  "bone fracture vitamin",
  "statin memory cohort",
  "microbiome trial review",
  "muscle pain therapy",
];

const VOCABULARY = (
  "vitamin bone fracture insulin resistance obesity microbiome statin memory cohort trial review muscle " +
  "relaxant pain therapy " +
  ("cancer tumour gene expression protein receptor signalling pathway mouse model clinical outcome mortality " +
    "risk factor ") +
  "randomized placebo dose response inflammation cytokine immune cell infection virus bacteria antibiotic resistance " +
  "heart failure blood pressure stroke diabetes kidney liver lung brain neuron cognition depression anxiety sleep diet"
).split(" ");

/** A deterministic pseudo-random generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Chunk `n` (two per document) in version `version`: 120 words drawn from the vocabulary. */
function chunk(n: number, version: number): ChunkRecord {
  const next = random(n * 7919 + version * 104729 + 1);
  const words = Array.from({ length: 120 }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]);
  const doc = Math.floor(n / 2);
  const journal = doc % 97;
  return {
    id: `c${n}`,
    text: words.join(" ") + (version > 0 ? ` revision${version}` : ""),
    tokens: 150,
    metadata: {
      chunk_index: n % 2,
      doc_id: `d${doc}`,
      title: `Document ${doc}`,
      journal: `Journal ${journal}`,
      issn: [`${String(1000 + journal).padStart(4, "0")}-000X`],
      publication_date: `${2000 + (doc % 25)}`,
    },
  };
}

const progress = (line: string): void => {
  process.stderr.write(`[bench:engine-commit] ${line}\n`);
};

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: Math.round(performance.now() - start), value };
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] * 10) / 10;
};

/** Search latencies while `during` runs (at least `minimum` searches), or for `minimum` searches when idle. */
async function searchLatencies(engine: SearchEngine, minimum: number, during?: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let done = during === undefined;
  void during?.finally(() => {
    done = true;
  });
  for (let i = 0; !done || latencies.length < minimum; i++) {
    const start = performance.now();
    await engine.search({ index: INDEX, mode: "sparse", text: QUERIES[i % QUERIES.length], limit: 10 });
    latencies.push(performance.now() - start);
    if (during && done && latencies.length >= minimum) break;
    // searches arrive as requests do, between other I/O (an embedded search that needs no I/O would starve the commit)
    await new Promise((resolve) => setImmediate(resolve));
  }
  return latencies;
}

async function measure(name: string, create: () => SearchEngine) {
  const engine = create();
  await engine.deleteIndex(INDEX);
  await engine.ensureIndex(INDEX, 8);
  const all = Array.from({ length: CHUNKS }, (_, n) => chunk(n, 0));

  progress(`${name}: staging ${CHUNKS} chunks`);
  const stageAll = await timed(async () => {
    for (let start = 0; start < all.length; start += 5_000)
      await engine.indexChunks(INDEX, all.slice(start, start + 5_000));
  });
  progress(`${name}: staged in ${stageAll.ms} ms, committing`);
  const commitAll = await timed(() => engine.commit(INDEX));
  progress(`${name}: committed in ${commitAll.ms} ms`);
  const idle = await searchLatencies(engine, 100);

  // 1% of the chunks changed, 0.1% deleted, spread over the index: committed once alone (its cost), then a second such
  // change committed while searches run (their latency; they share the process's one thread with the commit)
  const step = Math.floor(CHUNKS / CHANGED);
  const deleteStep = Math.floor(CHUNKS / DELETED);
  const upsert = (version: number, offset: number) => ({
    changed: Array.from({ length: CHANGED }, (_, i) => chunk(i * step + offset, version)),
    deleted: Array.from({ length: DELETED }, (_, i) => `c${i * deleteStep + offset + 1}`),
  });
  const first = upsert(1, 0);
  const stageUpsert = await timed(async () => {
    await engine.indexChunks(INDEX, first.changed);
    await engine.deleteChunks(INDEX, first.deleted);
  });
  progress(`${name}: upsert staged in ${stageUpsert.ms} ms, committing`);
  const commitUpsert = await timed(() => engine.commit(INDEX));
  const commitUpsertMs = commitUpsert.ms;
  const second = upsert(2, 2);
  await engine.indexChunks(INDEX, second.changed);
  await engine.deleteChunks(INDEX, second.deleted);
  const commit = engine.commit(INDEX);
  const commitStart = performance.now();
  const during = await searchLatencies(engine, 5, commit);
  await commit;
  const commitDuringSearchesMs = Math.round(performance.now() - commitStart);
  const stats = await engine.stats(INDEX);
  if (stats.chunks !== CHUNKS - 2 * DELETED)
    throw new Error(`${name}: ${stats.chunks} chunks after the upserts, expected ${CHUNKS - 2 * DELETED}`);
  const inventory = await timed(() => engine.getInventory(INDEX));
  const reader = create();
  const reload = await timed(() => reader.stats(INDEX));
  await reader.close();
  await engine.deleteIndex(INDEX);
  await engine.close();
  return {
    engine: name,
    chunks: CHUNKS,
    fullBuild: { stageMs: stageAll.ms, commitMs: commitAll.ms, totalMs: stageAll.ms + commitAll.ms },
    upsert: {
      changed: CHANGED,
      deleted: DELETED,
      stageMs: stageUpsert.ms,
      commitMs: commitUpsertMs,
      totalMs: stageUpsert.ms + commitUpsertMs,
    },
    commitDuringSearchesMs,
    searchMs: {
      idleP50: percentile(idle, 50),
      duringCommitP50: percentile(during, 50),
      duringCommitMax: percentile(during, 100),
      duringCommitCount: during.length,
    },
    inventoryRebuildMs: inventory.ms,
    inventoryDocuments: inventory.value?.documentCount,
    otherInstanceReloadMs: reload.ms,
  };
}

const results = [];
const dir = mkdtempSync(join(tmpdir(), "bench-commit-"));
let node: OpenSearchNode | undefined;
try {
  if (!args["only-opensearch"]) results.push(await measure("embedded", () => createEmbeddedEngine({ dir })));
  let url = args["opensearch-url"];
  if (!url && (args.opensearch || args["only-opensearch"])) {
    node = await startOpenSearchNode({
      dataDir: join(dir, "opensearch"),
      component: readComponent("opensearch", cacheDirFrom(process.env)),
    });
    url = node.url;
  }
  if (url) {
    const opensearchUrl = url;
    results.push(
      await measure("opensearch", () =>
        createOpenSearchEngine({ url: opensearchUrl, indexPrefix: `bench-${process.pid}-` }),
      ),
    );
  }
} finally {
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
}
const load = loadavg()
  .map((value) => value.toFixed(2))
  .join(" ");
console.log(JSON.stringify({ loadAverage: load, results }, null, 2));
for (const r of results) {
  console.log(
    `${r.engine}: ${r.chunks} chunks, full build ${r.fullBuild.totalMs} ms (commit ${r.fullBuild.commitMs}); ` +
      (`upsert of ${r.upsert.changed} changed + ${r.upsert.deleted} deleted ${r.upsert.totalMs} ms (commit ` +
        `${r.upsert.commitMs}), `) +
      (`${((100 * r.upsert.totalMs) / r.fullBuild.totalMs).toFixed(1)}% of a full build; search p50 ` +
        `${r.searchMs.idleP50} ms idle, `) +
      (`${r.searchMs.duringCommitP50} ms during the commit (max ${r.searchMs.duringCommitMax}, ` +
        `${r.searchMs.duringCommitCount} searches); `) +
      (`inventory rebuild ${r.inventoryRebuildMs} ms; another instance's reload ${r.otherInstanceReloadMs} ms ` +
        `(load ${load})`),
  );
}
