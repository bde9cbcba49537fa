// `journals build --openalex-sources DIR` as a function: the table, its metrics basis and its bounds from a generated
// snapshot of OpenAlex sources entity files, read through the filter planner the service runs with.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuildJournals } from "../../src/journals/build.js";
import { computeBounds, DEFAULT_METRIC_BOUNDS } from "../../src/journals/bounds.js";
import { readJournalTable, type JournalTable } from "../../src/journals/table.js";
import { JOURNAL_BOUNDS_FILE, JOURNALS_FILE, loadFilterPlanner } from "../../src/filters/planner.js";
import type { CatalogEntry } from "../../src/domain/collectionDefinitions.js";
import { writeOpenAlexSourcesSnapshot, type FixtureSource } from "./openAlexSourcesSnapshot.js";
import { openAlexWorksCollection } from "../support/openAlexCollection.js";

const SOURCES = 300;
let folder: string;
let dataDir: string;
let expected: FixtureSource[];
let table: JournalTable;
let summary: Awaited<ReturnType<typeof runBuildJournals>>;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "openalex-sources-"));
  const snapshot = join(folder, "openalex", "data", "sources");
  expected = writeOpenAlexSourcesSnapshot(snapshot, { count: SOURCES });
  // a data root whose works must not be used once a sources snapshot is named
  const dataRoot = join(folder, "root");
  mkdirSync(join(dataRoot, "articles"), { recursive: true });
  const work = {
    publication_year: 2021,
    type: "journal-article",
    cited_by_count: 999,
    primary_location: { source: { issn_l: expected[0]!.issnL, issn: expected[0]!.issns } },
    counts_by_year: [{ year: 2022, cited_by_count: 50 }],
  };
  writeFileSync(
    join(dataRoot, "articles", "openalex_works.test.jsonl.gz"),
    gzipSync(Array.from({ length: 30 }, () => JSON.stringify(work)).join("\n")),
  );
  dataDir = join(folder, "data-dir");
  summary = await runBuildJournals({
    dataRoot,
    doajPath: null,
    openAlexSourcesDir: snapshot,
    outPath: join(dataDir, JOURNALS_FILE),
    boundsPath: join(dataDir, JOURNAL_BOUNDS_FILE),
  });
  table = await readJournalTable(join(dataDir, JOURNALS_FILE));
});

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe("journals build --openalex-sources", () => {
  it("reads every part file of every partition: one row per source with an ISSN, its summary_stats as written", () => {
    expect(table.journals).toHaveLength(SOURCES);
    const byIssnL = new Map(table.journals.map((row) => [row.issnL, row]));
    for (const source of expected) {
      expect(byIssnL.get(source.issnL)).toEqual({
        issnL: source.issnL,
        issns: source.issns,
        title: source.title,
        publisher: source.publisher,
        h_index: source.hIndex,
        i10_index: source.i10Index,
        two_yr_mean_citedness: source.citedness,
        impact_factor: null,
        works_count: source.worksCount,
      });
    }
  });

  it("the data root's works are not used: the first journal keeps its source h-index, not the works sample's", () => {
    expect(table.journals.find((row) => row.issnL === expected[0]!.issnL)?.h_index).toBe(expected[0]!.hIndex);
    expect(table.metricsBasis.works).toBeNull();
  });

  it("impact factor is absent for every journal: source records cannot support the JIF formula", () => {
    expect(table.journals.every((row) => row.impact_factor === null)).toBe(true);
    expect(summary.withImpactFactor).toBe(0);
  });

  it("records its basis and says it in one sentence: OpenAlex source records, how many journals and works", () => {
    const works = expected.reduce((sum, source) => sum + source.worksCount, 0);
    expect(table.metricsBasis).toEqual({
      works: null,
      openAlexSources: { records: SOURCES, worksCount: works },
      citationYear: null,
    });
    expect(summary.metricsBasis).toBe(
      `Journal metrics come from OpenAlex source records (${SOURCES} journals, ` +
        `${works.toLocaleString("en-US")} works of every publication year): ` +
        ("h-index, i10-index and two-year mean citedness count each journal's whole output in OpenAlex, and " +
          "impact factor is absent because source records do not carry the citations to the two previous years' " +
          "articles and reviews that the JIF formula needs."),
    );
  });

  it("writes the bounds recomputed from the table it built (not the spec's)", () => {
    const written = JSON.parse(readFileSync(join(dataDir, JOURNAL_BOUNDS_FILE), "utf8"));
    expect(written.bounds).toEqual(computeBounds(table.journals).bounds);
    expect(summary.bounds).toEqual(written.bounds);
    // 300 journals are far under 35,000 ISSNs: every one-ended threshold passes, up to the highest value
    expect(written.bounds["journal_metric.h_index"]).toEqual({
      minGte: 0,
      maxLte: Math.max(...expected.map((s) => s.hIndex)),
    });
    expect(written.bounds["journal_metric.h_index"]).not.toEqual(
      DEFAULT_METRIC_BOUNDS.bounds["journal_metric.h_index"],
    );
  });

  it("the filter planner matches exactly the journals scored in range, and names the metrics' source", async () => {
    const planner = await loadFilterPlanner(dataDir, "/nonexistent-data-root");
    const collection = openAlexWorksCollection(["x.jsonl"]);
    const plan = await planner(
      { "journal_metric.h_index": { gte: 200 }, "journal_metric.2yr_mean_citedness": { lte: 2.5 } },
      [{ requested: collection as CatalogEntry, physical: [collection] }],
    );
    const high = expected.filter((s) => s.hIndex >= 200);
    const lowCitedness = expected.filter((s) => s.citedness <= 2.5);
    expect(plan.journalMetricExpansions).toEqual([
      {
        field: "journal_metric.h_index",
        condition: "gte 200",
        matchedJournals: high.length,
        issnCount: high.length * 2,
        sampleIssns: expect.any(Array),
        metricsBasis: summary.metricsBasis,
      },
      {
        field: "journal_metric.2yr_mean_citedness",
        condition: "lte 2.5",
        matchedJournals: lowCitedness.length,
        issnCount: lowCitedness.length * 2,
        sampleIssns: expect.any(Array),
        metricsBasis: summary.metricsBasis,
      },
    ]);
    const impact = await planner({ "journal_metric.impact_factor": { gte: 0.5 } }, [
      { requested: collection as CatalogEntry, physical: [collection] },
    ]);
    expect(impact.filterWarnings.map((w) => (w as { code: string }).code)).toEqual(["journal_metric_matched_nothing"]);
  });

  it("refuses a folder that is missing or holds no sources files, naming what it expected", async () => {
    const empty = mkdtempSync(join(folder, "empty-"));
    await expect(
      runBuildJournals({ dataRoot: folder, openAlexSourcesDir: join(folder, "nope"), outPath: join(folder, "x.json") }),
    ).rejects.toThrow(/no such folder/);
    await expect(
      runBuildJournals({ dataRoot: folder, openAlexSourcesDir: empty, outPath: join(folder, "x.json") }),
    ).rejects.toThrow(/part_\*\.gz/);
  });
});
