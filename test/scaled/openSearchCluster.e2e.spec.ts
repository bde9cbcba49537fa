// The scaled shape on a cluster, not a node: two OpenSearch processes (each its own home, HTTP and transport port,
// 384 MB heap) form one cluster; the service lists both in OPENSEARCH_URL and lays its indexes out in two shards with
// one replica. One node is killed with SIGKILL while customers search and an ingestion runs: searches keep answering
// (any failure is a 503 within the documented window after the kill, counted), the ingestion completes (Temporal
// retries a batch that failed) and the collection then holds every source document exactly once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cacheDirFrom } from "../../src/app/config.js";
import { readComponent } from "../../src/infra/components.js";
import { startOpenSearchCluster, type OpenSearchCluster } from "../support/opensearchCluster.js";
import { chunkId } from "../../src/ingest/chunk.js";
import { ingestionWorkflowId } from "../../workflows/ingestionTypes.js";
import { plainCollection, writeCollectionsConfig, writeJsonl } from "../support/operatorContent.js";
import {
  httpClient,
  operatorSteps,
  sliceDataRoot,
  startTestService,
  untilIngested,
  type TestService,
} from "../support/testService.js";

const COLLECTION = "cluster-notes";
const INDEX = `litsearch-${COLLECTION}`;
const FIRST = 60;
const TOTAL = 400;
/** docs/operations.md: searches that fail while a lost node's shards move are 503s within this long of the loss */
const FAILOVER_WINDOW_MS = 15_000;
const note = (n: number) => ({
  id: `note-${n}`,
  title: `Survey ${n}`,
  text: `Field survey ${n} counted ${n * 7} parrotfish grazing on reef transect ${n}.`,
});

let cluster: OpenSearchCluster | undefined;
let clusterDir: string;
let svc: TestService | undefined;
let call: ReturnType<typeof httpClient>;

beforeAll(async () => {
  clusterDir = mkdtempSync(join(tmpdir(), "litsearch-cluster-"));
  cluster = await startOpenSearchCluster({
    dir: clusterDir,
    component: readComponent("opensearch", cacheDirFrom(process.env)),
    nodes: 2,
    heap: "384m",
  });
  const dataRoot = await sliceDataRoot();
  writeJsonl(
    dataRoot,
    "cluster-v1.jsonl",
    Array.from({ length: FIRST }, (_, n) => note(n)),
  );
  writeJsonl(
    dataRoot,
    "cluster-v2.jsonl",
    Array.from({ length: TOTAL }, (_, n) => note(n)),
  );
  const collections = writeCollectionsConfig([
    plainCollection(COLLECTION, "jsonl", ["cluster-v1.jsonl"], {
      displayName: "Cluster notes",
      retrieval: "sparse",
      scanFilterable: false,
    }),
  ]);
  svc = await startTestService({
    dataRoot,
    opensearchUrl: cluster.urls,
    collectionsConfig: collections,
    // each batch pauses after its commit, so the kill lands mid-ingestion
    env: {
      OPENSEARCH_SHARDS: "2",
      OPENSEARCH_REPLICAS: "1",
      INGEST_BATCH_SIZE: "20",
      INGEST_PARALLELISM: "1",
      FAULT_INGEST_BATCH_DELAY_MS: "400",
    },
  });
  call = httpClient(svc.baseUrl);
}, 600_000);

afterAll(async () => {
  await svc?.close();
  await cluster?.stop();
  if (clusterDir) rmSync(clusterDir, { recursive: true, force: true });
});

/** a request straight to one node (not through the service) */
async function node<T>(url: string, path: string): Promise<T> {
  const res = await fetch(`${url}${path}`);
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

it("keeps answering searches and completes an ingestion, exactly once, when a node is killed", async () => {
  const { nodes } = cluster!;
  const health = await node<{ status: string; number_of_nodes: number }>(
    nodes[0]!.url,
    "/_cluster/health?wait_for_status=green&timeout=60s",
  );
  expect(health).toMatchObject({ status: "green", number_of_nodes: 2 });
  const settings = await node<Record<string, { settings: { index: Record<string, string> } }>>(
    nodes[0]!.url,
    `/${INDEX}/_settings`,
  );
  expect(settings[INDEX]!.settings.index).toMatchObject({ number_of_shards: "2", number_of_replicas: "1" });

  // two cluster-manager-eligible nodes keep one vote: only the node without it can be lost (docs/operations.md)
  const [manager] = await node<{ node: string }[]>(nodes[0]!.url, "/_cat/cluster_manager?format=json");
  const victim = nodes.find((n) => n.name !== manager!.node)!;
  const survivor = nodes.find((n) => n !== victim)!;
  const shards = await node<{ prirep: string; node: string }[]>(survivor.url, `/_cat/shards/${INDEX}?format=json`);
  const victimPrimaries = shards.filter((s) => s.node === victim.name && s.prirep === "p").length;

  // limits high enough for a search loop: a 429 here would be the rate limit, not the cluster
  const { key } = await operatorSteps(call, svc!.adminToken).customer({
    credits: "100.00",
    org: { limits: { perMinute: 100_000, daily: 100_000, monthly: 1_000_000 } },
  });
  const searches: { at: number; status: number; hits: number }[] = [];
  let searching = true;
  const searchStream = (async () => {
    while (searching) {
      const res = await call("POST", "/api/v1/search/query", {
        key,
        body: { collections: [COLLECTION], query: "parrotfish grazing on the reef", limit: 5 },
      });
      searches.push({ at: Date.now(), status: res.status, hits: res.body?.results?.length ?? 0 });
    }
  })();

  const started = await call("POST", `/admin/v1/collections/${COLLECTION}/ingest`, {
    admin: svc!.adminToken,
    body: { files: ["cluster-v2.jsonl"], mode: "upsert" },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const { ingestionId } = started.body as { ingestionId: string };
  for (let i = 0; i < 2400; i++) {
    const s = await call("GET", `/admin/v1/ingestions/${ingestionId}`, { admin: svc!.adminToken });
    if (s.body.documentsAdded >= 60) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const killedAt = Date.now();
  await victim.kill();
  // the cluster has taken the loss when the survivor alone holds an active copy of every shard
  let recoveredAt = 0;
  while (recoveredAt === 0) {
    const h = await node<{ number_of_nodes: number; active_primary_shards: number }>(
      survivor.url,
      `/_cluster/health/${INDEX}`,
    );
    if (h.number_of_nodes === 1 && h.active_primary_shards === 2) recoveredAt = Date.now();
    else await new Promise((r) => setTimeout(r, 100));
  }

  const done = await untilIngested(call, svc!.adminToken, ingestionId);
  const ingestedAt = Date.now();
  await new Promise((r) => setTimeout(r, 2000));
  searching = false;
  await searchStream;

  expect(done).toMatchObject({
    state: "completed",
    documentsRead: TOTAL,
    documentsAdded: TOTAL - FIRST,
    documentsUnchanged: FIRST,
    error: null,
  });
  // every source document once: the count, and the ids against the source's
  await fetch(`${survivor.url}/${INDEX}/_refresh`, { method: "POST" });
  const { count } = await node<{ count: number }>(survivor.url, `/${INDEX}/_count`);
  const ids = await node<{ hits: { hits: { _id: string }[] } }>(
    survivor.url,
    `/${INDEX}/_search?size=${TOTAL + 100}&_source=false&filter_path=hits.hits._id`,
  );
  const expected = Array.from({ length: TOTAL }, (_, n) => chunkId(COLLECTION, `note-${n}`, 0)).sort();
  expect(count).toBe(TOTAL);
  expect(ids.hits.hits.map((h) => h._id).sort()).toEqual(expected);
  expect((await svc!.runtime.engine.stats(COLLECTION)).chunks).toBe(TOTAL);

  const failed = searches.filter((s) => s.status !== 200);
  const after = searches.filter((s) => s.at > killedAt);
  const history = await svc!.runtime.temporal.client.workflow
    .getHandle(ingestionWorkflowId(ingestionId))
    .fetchHistory();
  const retried = history.events!.filter((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) >= 2).length;
  const firstAnswerAfterKill = after.find((s) => s.status === 200)?.at ?? Number.NaN;
  // the figures docs/measurements.md records
  console.log(
    `[cluster failover] ${JSON.stringify({
      searches: searches.length,
      searchesAfterKill: after.length,
      failedSearches: failed.length,
      failedStatuses: [...new Set(failed.map((s) => s.status))],
      lastFailureAfterKillMs: failed.length > 0 ? Math.max(...failed.map((s) => s.at)) - killedAt : 0,
      firstAnswerAfterKillMs: firstAnswerAfterKill - killedAt,
      primariesActiveAfterMs: recoveredAt - killedAt,
      ingestionEndedAfterKillMs: ingestedAt - killedAt,
      victimPrimaries,
      retriedActivities: retried,
    })}`,
  );
  // searches kept answering: every failure a 503 within the window after the kill, answers after it, all with hits
  expect(after.filter((s) => s.status === 200).length).toBeGreaterThan(0);
  for (const s of failed) {
    expect(s.status).toBe(503);
    expect(s.at - killedAt).toBeLessThan(FAILOVER_WINDOW_MS);
  }
  for (const s of searches.filter((x) => x.status === 200)) expect(s.hits).toBeGreaterThan(0);
}, 600_000);
