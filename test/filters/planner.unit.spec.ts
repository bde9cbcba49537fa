// The filter planner as the service loads it: bounds that move with a recomputed snapshot, Rejections for 422, pinned
// DOIs passed on.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogEntry } from "../../src/domain/collectionDefinitions.js";
import {
  JOURNAL_BOUNDS_FILE,
  JOURNALS_FILE,
  loadFilterPlanner,
  loadJournalTable,
  loadMetricBounds,
} from "../../src/filters/planner.js";
import { DEFAULT_METRIC_BOUNDS, runComputeBounds } from "../../src/journals/bounds.js";
import { writeJournalTable } from "../../src/journals/table.js";
import { Rejection } from "../../src/domain/rejection.js";
import type { FilterPlanner } from "../../src/usecases/search/pipeline.js";
import { journal, syntheticIssn } from "../journals/syntheticJournals.js";
import { openAlexWorksCollection } from "../support/openAlexCollection.js";

const collection = openAlexWorksCollection(["articles/works.jsonl"]);
const targets = [{ requested: collection as CatalogEntry, physical: [collection] }];

let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "filter-planner-"));
  // a small snapshot: 40 journals with h_index 0..39, so recomputed bounds let any one-ended threshold through
  const journals = Array.from({ length: 40 }, (_, n) =>
    journal({
      issns: [syntheticIssn(n)],
      h_index: n,
      i10_index: n,
      two_yr_mean_citedness: n / 10,
      impact_factor: n / 10,
    }),
  );
  await writeJournalTable(
    {
      formatVersion: 1,
      builtAt: "2026-01-01T00:00:00Z",
      citationYear: 2025,
      inputs: ["test"],
      metricsBasis: {
        works: { count: 40, publicationYears: { first: 2020, last: 2024 } },
        openAlexSources: null,
        citationYear: 2025,
      },
      journals,
    },
    join(dataDir, JOURNALS_FILE),
  );
});

afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function plannerOutcome(
  planner: FilterPlanner,
  filters: unknown,
): Promise<Rejection | Awaited<ReturnType<FilterPlanner>>> {
  try {
    return await planner(filters, targets);
  } catch (error) {
    if (error instanceof Rejection) return error;
    throw error;
  }
}

describe("metric bounds loaded by the service", () => {
  it("are the spec's table until `journals bounds` writes a recomputed one", async () => {
    expect(await loadMetricBounds(join(dataDir, "absent.json"))).toBe(DEFAULT_METRIC_BOUNDS);
    const planner = await loadFilterPlanner(dataDir, "/nonexistent-data-root");
    const rejected = await plannerOutcome(planner, { "journal_metric.h_index": { gte: 10 } });
    expect(rejected).toBeInstanceOf(Rejection);
    expect(rejected).toMatchObject({
      code: "INVALID_FILTER",
      details: { field: "journal_metric.h_index", min_gte: 35, max_lte: 3 },
    });
  });

  it("move with the snapshot once recomputed, and the planner applies them", async () => {
    const computed = await runComputeBounds({
      journalsPath: join(dataDir, JOURNALS_FILE),
      outPath: join(dataDir, JOURNAL_BOUNDS_FILE),
    });
    expect(computed.bounds["journal_metric.h_index"]).toEqual({ minGte: 0, maxLte: 39 });
    expect((await loadMetricBounds(join(dataDir, JOURNAL_BOUNDS_FILE))).bounds).toEqual(computed.bounds);
    const planner = await loadFilterPlanner(dataDir, "/nonexistent-data-root");
    const accepted = await plannerOutcome(planner, { "journal_metric.h_index": { gte: 10 } });
    expect(accepted).not.toBeInstanceOf(Rejection);
    expect(accepted).toMatchObject({
      journalMetricExpansions: [
        { field: "journal_metric.h_index", condition: "gte 10", matchedJournals: 30, issnCount: 30 },
      ],
    });
  });
});

describe("metrics basis", () => {
  it("every expansion entry says, from the table, what its metrics were computed from", async () => {
    const planner = await loadFilterPlanner(dataDir, "/nonexistent-data-root");
    const plan = await plannerOutcome(planner, {
      "journal_metric.h_index": { gte: 35 },
      "journal_metric.i10_index": { gte: 160 },
    });
    const sentence =
      "Journal metrics are computed from the 40 OpenAlex works this service indexes that name their journal " +
      "(published 2020-2024, citations counted in 2025)";
    expect(
      (plan as { journalMetricExpansions: { metricsBasis: string }[] }).journalMetricExpansions.map((e) =>
        e.metricsBasis.slice(0, sentence.length),
      ),
    ).toEqual([sentence, sentence]);
  });
});

describe("planner output", () => {
  it("turns a FilterError into INVALID_FILTER with details.field and details.filter", async () => {
    const planner = await loadFilterPlanner(dataDir, "/nonexistent-data-root");
    const rejected = await plannerOutcome(planner, {
      and: [
        { field: "journal", eq: "Cell" },
        { field: "titel", eq: "x" },
      ],
    });
    expect(rejected).toMatchObject({
      code: "INVALID_FILTER",
      details: { field: "titel", filter: { field: "titel", eq: "x" } },
    });
    const scan = await plannerOutcome(planner, { title: "Cancer" });
    expect(scan).toMatchObject({ code: "INVALID_FILTER", details: { field: "title", filter: { title: "Cancer" } } });
    expect((scan as Rejection).message).toContain('"works"');
  });

  it("passes the pinned DOIs on for the doi_not_in_collection check", async () => {
    const planner = await loadFilterPlanner(dataDir, "/nonexistent-data-root");
    const plan = await plannerOutcome(planner, {
      or: [{ field: "doi", in: ["https://doi.org/10.1/X", "10.2/y"] }, { not: [{ field: "doi", eq: "10.3/z" }] }],
    });
    expect(plan).toMatchObject({ pinnedDois: ["10.1/x", "10.2/y"] });
  });
});

describe("a journals table written before it recorded its basis", () => {
  it("is rebuilt from the data root on load, so the sentence can be derived from it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "outdated-table-"));
    const oldDataDir = join(folder, "data-dir");
    mkdirSync(oldDataDir);
    writeFileSync(
      join(oldDataDir, JOURNALS_FILE),
      JSON.stringify({
        formatVersion: 1,
        builtAt: "2025-01-01T00:00:00Z",
        citationYear: 2022,
        inputs: [],
        journals: [],
      }),
    );
    const dataRoot = join(folder, "root");
    mkdirSync(join(dataRoot, "articles"), { recursive: true });
    const work = {
      publication_year: 2019,
      type: "journal-article",
      cited_by_count: 4,
      updated_date: "2023-03-01",
      primary_location: { source: { issn_l: "1745-6215", issn: ["1745-6215"] } },
    };
    writeFileSync(
      join(dataRoot, "articles", "openalex_works.x.jsonl"),
      [work, work].map((w) => JSON.stringify(w)).join("\n"),
    );
    const table = await loadJournalTable(oldDataDir, dataRoot);
    expect(table.metricsBasis).toEqual({
      works: { count: 2, publicationYears: { first: 2019, last: 2019 } },
      openAlexSources: null,
      citationYear: 2022,
    });
    expect(table.journals.map((j) => j.issnL)).toEqual(["1745-6215"]);
    rmSync(folder, { recursive: true, force: true });
  });
});
