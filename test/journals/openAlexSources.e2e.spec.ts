// A deployment with the open OpenAlex snapshot: `journals build --openalex-sources DIR` (the real CLI) writes the
// journals table and its bounds, and the running service filters, lists and expands on those metrics and says where
// they come from.
import { spawnSync } from "node:child_process";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { sliceDataRoot, startWithCustomer, type httpClient, type TestService } from "../support/testService.js";
import { tempDirs } from "../support/tempDirs.js";
import { writeOpenAlexSourcesSnapshot, type FixtureSource, type KnownJournal } from "./openAlexSourcesSnapshot.js";

const made = tempDirs();

const COLLECTION = "openalex-synergy";
const THRESHOLD = 100;
/** the i-th journal of the indexed works: high h-index when i is even, low when odd */
const hIndexOfKnown = (i: number) => (i % 2 === 0 ? 150 + i : 5 + i);

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let key: string;
let expected: FixtureSource[];
let build: {
  metricsBasis: string;
  journals: number;
  withCitationMetrics: number;
  withImpactFactor: number;
  boundsPath: string;
  bounds: Record<string, { minGte: number; maxLte: number | null }>;
};

/** The journals of the works the slice indexes (primary source with an ISSN-L), in file order. */
async function indexedJournals(dataRoot: string): Promise<KnownJournal[]> {
  const seen = new Map<string, KnownJournal>();
  const input = createReadStream(join(dataRoot, "articles", "openalex_works.synergy.jsonl.gz")).pipe(createGunzip());
  for await (const line of createInterface({ input })) {
    if (!line.trim()) continue;
    const source = JSON.parse(line).primary_location?.source;
    if (!source?.issn_l || seen.has(source.issn_l)) continue;
    seen.set(source.issn_l, {
      issnL: source.issn_l,
      issns: source.issn ?? [],
      title: source.display_name,
      publisher: source.host_organization_name ?? "Unknown",
    });
  }
  return [...seen.values()];
}

beforeAll(async () => {
  const dataRoot = await sliceDataRoot();
  const dataDir = made("litsearch-sources-svc-");
  const snapshot = join(made("openalex-snapshot-"), "data", "sources");
  const known = await indexedJournals(dataRoot);
  expect(known.length).toBeGreaterThan(10);
  expected = writeOpenAlexSourcesSnapshot(snapshot, { count: 300, known, hIndexOfKnown });
  const cli = spawnSync(process.execPath, ["bin/litsearch.mjs", "journals", "build", "--openalex-sources", snapshot], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATA_ROOT: dataRoot, DATABASE_URL: "" },
    encoding: "utf8",
  });
  expect(cli.stderr).toBe("");
  expect(cli.status).toBe(0);
  build = JSON.parse(cli.stdout);
  ({ svc, call, key } = await startWithCustomer({ dataRoot, dataDir }, "5.00"));
}, 600_000);

afterAll(async () => {
  await svc?.close();
});

const highIssns = () => new Set(expected.filter((s) => s.hIndex >= THRESHOLD).flatMap((s) => s.issns));

describe("journal metrics from OpenAlex source records", () => {
  it("the CLI builds 300 journals with metrics (DOAJ's without), bounds recomputed, and names the source", () => {
    expect(build.withCitationMetrics).toBe(300);
    expect(build.withImpactFactor).toBe(0);
    expect(build.metricsBasis).toMatch(
      /^Journal metrics come from OpenAlex source records \(300 journals, [\d,]+ works of every publication year\)/,
    );
    expect(build.bounds["journal_metric.h_index"]).toEqual({
      minGte: 0,
      maxLte: Math.max(...expected.map((s) => s.hIndex)),
    });
  });

  it("the journals listing shows each source h-index, no impact factor; the note opens with the basis", async () => {
    const listing = await call("GET", `/api/v1/search/collections/${COLLECTION}/journals?limit=200`, { key });
    expect(listing.status).toBe(200);
    expect(listing.body.metricsNote.startsWith(`${build.metricsBasis} `)).toBe(true);
    const items = listing.body.scopes[0].items as {
      issnL: string;
      hIndex: number | null;
      impactFactor: number | null;
    }[];
    expect(items.length).toBeGreaterThan(5);
    const byIssnL = new Map(expected.map((s) => [s.issnL, s]));
    for (const item of items) {
      expect(item.hIndex).toBe(byIssnL.get(item.issnL)!.hIndex);
      expect(item.impactFactor).toBeNull();
    }
    const floor = await call(
      "GET",
      `/api/v1/search/collections/${COLLECTION}/journals?limit=200&min_h_index=${THRESHOLD}`,
      { key },
    );
    const floored = floor.body.scopes[0].items as { hIndex: number }[];
    expect(floored.length).toBeGreaterThan(0);
    expect(floored.length).toBeLessThan(items.length);
    expect(floored.every((i) => i.hIndex >= THRESHOLD)).toBe(true);
  });

  it("a metric filter keeps works of journals scored in range; the expansion names the metrics' source", async () => {
    const query = "randomized controlled trial of treatment";
    const plain = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: COLLECTION, query, limit: 20 },
    });
    expect(plain.status).toBe(200);
    const high = highIssns();
    const inHigh = (r: { metadata: { issn?: string[] | null } }) =>
      (r.metadata.issn ?? []).some((issn) => high.has(issn));
    // the control: without the filter, works of low-h journals come back too
    expect(plain.body.results.some((r: { metadata: { issn?: string[] | null } }) => !inHigh(r))).toBe(true);
    const filtered = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: COLLECTION, query, limit: 20, filters: { "journal_metric.h_index": { gte: THRESHOLD } } },
    });
    expect(filtered.status).toBe(200);
    expect(filtered.body.results.length).toBeGreaterThan(0);
    expect(filtered.body.results.every(inHigh)).toBe(true);
    const matched = expected.filter((s) => s.hIndex >= THRESHOLD);
    expect(filtered.body.journalMetricExpansions).toEqual([
      {
        field: "journal_metric.h_index",
        condition: `gte ${THRESHOLD}`,
        matchedJournals: matched.length,
        issnCount: new Set(matched.flatMap((s) => s.issns)).size,
        sampleIssns: expect.any(Array),
        metricsBasis: build.metricsBasis,
      },
    ]);
  });

  it("the bounds follow the built table: an upper end alone the spec's table refuses (lte 50 > 3) passes", async () => {
    const res = await call("POST", "/api/v1/search/query", {
      key,
      body: {
        collection: COLLECTION,
        query: "randomized controlled trial",
        limit: 5,
        filters: { "journal_metric.h_index": { lte: 50 } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.journalMetricExpansions[0].matchedJournals).toBe(expected.filter((s) => s.hIndex <= 50).length);
  });

  it("impact factor is absent everywhere: a threshold on it matches nothing and says so", async () => {
    const res = await call("POST", "/api/v1/search/query", {
      key,
      body: {
        collection: COLLECTION,
        query: "randomized controlled trial",
        limit: 5,
        filters: { "journal_metric.impact_factor": { gte: 1 } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([]);
    expect(res.body.filterWarnings.map((w: { code: string }) => w.code)).toContain("journal_metric_matched_nothing");
  });
});
