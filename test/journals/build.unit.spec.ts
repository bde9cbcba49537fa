// The journals table: metric definitions, the JIF rule, DOAJ and OpenAlex-source merging, and the build command
// (the build from the real OpenAlex sample: buildRealData.int.spec.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { mergeJournals, runBuildJournals } from "../../src/journals/build.js";
import { parseDoajCsv } from "../../src/journals/doaj.js";
import { journalFromOpenAlexSource, readOpenAlexSources } from "../../src/journals/openAlexSources.js";
import { readJournalTable, type JournalRecord } from "../../src/journals/table.js";
import { hIndex, i10Index, WorkMetricsAccumulator } from "../../src/journals/worksMetrics.js";
import { tempDirs } from "../support/tempDirs.js";

const tempDir = tempDirs();

function work(overrides: {
  year: number;
  cited?: number;
  citedIn?: Record<number, number>;
  type?: string;
  issnL?: string;
  paratext?: boolean;
}): Record<string, unknown> {
  return {
    publication_year: overrides.year,
    type: overrides.type ?? "journal-article",
    is_paratext: overrides.paratext ?? false,
    cited_by_count: overrides.cited ?? Object.values(overrides.citedIn ?? {}).reduce((sum, count) => sum + count, 0),
    counts_by_year: Object.entries(overrides.citedIn ?? {}).map(([year, count]) => ({
      year: Number(year),
      cited_by_count: count,
    })),
    updated_date: "2023-03-01T00:00:00",
    primary_location: {
      source: {
        issn_l: overrides.issnL ?? "1234-5679",
        issn: [overrides.issnL ?? "1234-5679", "2345-678x"],
        display_name: "Journal of Tests",
        host_organization_name: "Test Press",
      },
    },
  };
}

function accumulate(works: Array<Record<string, unknown>>, citationYear?: number): JournalRecord[] {
  const accumulator = new WorkMetricsAccumulator();
  for (const entry of works) accumulator.add(entry);
  return accumulator.finish(citationYear ?? accumulator.defaultCitationYear()).journals;
}

describe("metric definitions", () => {
  it("h-index and i10-index", () => {
    expect(hIndex([])).toBe(0);
    expect(hIndex([0, 0])).toBe(0);
    expect(hIndex([10, 8, 5, 4, 3])).toBe(4);
    expect(hIndex([25, 8, 5, 3, 3])).toBe(3);
    expect(hIndex([100])).toBe(1);
    expect(i10Index([10, 9, 11, 0])).toBe(2);
  });

  it("citation year is the year before the snapshot's latest update", () => {
    const accumulator = new WorkMetricsAccumulator();
    accumulator.add(work({ year: 2020 }));
    expect(accumulator.defaultCitationYear()).toBe(2022);
  });

  it("2yr_mean_citedness: citations in Y to works of Y-1 and Y-2, over the number of those works (all types)", () => {
    const [journal] = accumulate(
      [
        work({ year: 2021, citedIn: { 2022: 6, 2021: 100 } }),
        work({ year: 2020, citedIn: { 2022: 3 }, type: "letter" }),
        work({ year: 2019, citedIn: { 2022: 50 } }), // outside the window
        work({ year: 2022, citedIn: { 2022: 50 } }), // outside the window
      ],
      2022,
    );
    expect(journal.two_yr_mean_citedness).toBe(4.5);
    expect(journal.issns).toEqual(["1234-5679", "2345-678X"]);
    expect(journal.works_count).toBe(4);
  });

  it("2yr_mean_citedness is 0 for a journal with no works (or no citations) in the window", () => {
    expect(accumulate([work({ year: 2010, cited: 40 })], 2022)[0].two_yr_mean_citedness).toBe(0);
  });

  it("impact factor: citations in Y to all items of Y-1, Y-2 over articles+reviews of those years", () => {
    const articles = Array.from({ length: 20 }, (_, n) => work({ year: 2020 + (n % 2), citedIn: { 2022: 2 } }));
    const letters = Array.from({ length: 4 }, () => work({ year: 2021, citedIn: { 2022: 5 }, type: "letter" }));
    const [journal] = accumulate([...articles, ...letters], 2022);
    expect(journal.impact_factor).toBe(3); // (40 + 20) / 20
    expect(journal.two_yr_mean_citedness).toBe(2.5); // 60 / 24
  });

  it("impact factor is absent (null, not 0) under 20 articles and reviews", () => {
    const works = Array.from({ length: 19 }, () => work({ year: 2021, citedIn: { 2022: 2 } }));
    expect(accumulate(works, 2022)[0].impact_factor).toBeNull();
    expect(accumulate([...works, work({ year: 2020, type: "review" })], 2022)[0].impact_factor).toBe(1.9);
  });

  it("no impact factor when articles and reviews are under half the output (paratext and others count)", () => {
    const articles = Array.from({ length: 20 }, () => work({ year: 2021, citedIn: { 2022: 1 } }));
    const others = Array.from({ length: 21 }, (_, n) =>
      n % 2 ? work({ year: 2021, type: "editorial" }) : work({ year: 2020, paratext: true }),
    );
    expect(accumulate([...articles, ...others], 2022)[0].impact_factor).toBeNull();
    expect(accumulate([...articles, ...others.slice(0, 20)], 2022)[0].impact_factor).toBe(1);
  });

  it("works without a source ISSN are not attributed to any journal", () => {
    const accumulator = new WorkMetricsAccumulator();
    accumulator.add({ ...work({ year: 2020 }), primary_location: { source: null } });
    accumulator.add({ ...work({ year: 2020 }), primary_location: null });
    accumulator.add("not a work");
    expect(accumulator.finish(2022).journals).toEqual([]);
  });
});

describe("OpenAlex source records importer", () => {
  const sources = [
    {
      id: "https://openalex.org/S1",
      issn_l: "0363-5465",
      issn: ["0363-5465", "1552-3365"],
      display_name: "The American Journal of Sports Medicine",
      host_organization_name: "SAGE",
      works_count: 12000,
      summary_stats: { h_index: 320, i10_index: 9100, "2yr_mean_citedness": 6.12345 },
    },
    {
      id: "https://openalex.org/S2",
      issn_l: "9999-999x",
      issn: null,
      display_name: "Only In Sources",
      summary_stats: { h_index: 12, i10_index: 30, "2yr_mean_citedness": 0 },
    },
    { id: "https://openalex.org/S3", issn_l: null, issn: null, display_name: "No ISSN", summary_stats: { h_index: 1 } },
  ];

  it("reads summary_stats; no impact factor comes from source records", () => {
    expect(journalFromOpenAlexSource(sources[0])).toEqual({
      issnL: "0363-5465",
      issns: ["0363-5465", "1552-3365"],
      title: "The American Journal of Sports Medicine",
      publisher: "SAGE",
      h_index: 320,
      i10_index: 9100,
      two_yr_mean_citedness: 6.123,
      impact_factor: null,
      works_count: 12000,
    });
    expect(journalFromOpenAlexSource(sources[1])?.issns).toEqual(["9999-999X"]);
    expect(journalFromOpenAlexSource(sources[2])).toBeNull();
  });

  it("reads a gzipped JSON Lines file; merged, it overrides the sample's 3 metrics, not impact factor", async () => {
    const folder = tempDir("sources-");
    const path = join(folder, "openalex_sources.jsonl.gz");
    writeFileSync(path, gzipSync(sources.map((source) => JSON.stringify(source)).join("\n")));
    const fromSources = await readOpenAlexSources(path);
    expect(fromSources).toHaveLength(2);
    const fromWorks: JournalRecord[] = [
      {
        issnL: "0363-5465",
        issns: ["0363-5465"],
        title: "AJSM",
        publisher: null,
        h_index: 62,
        i10_index: 130,
        two_yr_mean_citedness: 6.708,
        impact_factor: 6.708,
        works_count: 153,
      },
    ];
    const merged = mergeJournals(fromWorks, fromSources, []);
    expect(merged).toHaveLength(2);
    expect(merged[0]).toMatchObject({
      issns: ["0363-5465", "1552-3365"],
      title: "AJSM",
      publisher: "SAGE",
      h_index: 320,
      i10_index: 9100,
      two_yr_mean_citedness: 6.123,
      impact_factor: 6.708,
    });
    expect(merged[1]).toMatchObject({ issnL: "9999-999X", h_index: 12, impact_factor: null });
  });
});

describe("DOAJ", () => {
  const csv = [
    "Journal title,Journal ISSN (print version),Journal EISSN (online version),Languages in which the journal " +
      "accepts manuscripts,Publisher,DOAJ Seal,Journal license,APC",
    'Trials,,1745-6215,English,BMC,Yes,"CC BY, CC0",Yes',
    "Some Journal,1234-5679,2345-678x,English,Some Press,No,CC BY,No",
    "No Issn,,,English,Nobody,No,CC BY,No",
  ].join("\n");

  it("parses titles, publishers and canonical ISSNs; rows without an ISSN are dropped", () => {
    expect(parseDoajCsv(csv)).toEqual([
      { title: "Trials", publisher: "BMC", issns: ["1745-6215"] },
      { title: "Some Journal", publisher: "Some Press", issns: ["1234-5679", "2345-678X"] },
    ]);
  });

  it("adds ISSNs and missing names to a works journal; a DOAJ-only journal has no metrics", () => {
    const fromWorks: JournalRecord[] = [
      {
        issnL: "2345-678X",
        issns: ["2345-678X"],
        title: null,
        publisher: "Works Press",
        h_index: 5,
        i10_index: 1,
        two_yr_mean_citedness: 1,
        impact_factor: null,
        works_count: 5,
      },
    ];
    const merged = mergeJournals(fromWorks, [], parseDoajCsv(csv));
    expect(merged).toEqual([
      { ...fromWorks[0], issns: ["2345-678X", "1234-5679"], title: "Some Journal", publisher: "Works Press" },
      {
        issnL: null,
        issns: ["1745-6215"],
        title: "Trials",
        publisher: "BMC",
        h_index: null,
        i10_index: null,
        two_yr_mean_citedness: null,
        impact_factor: null,
        works_count: null,
      },
    ]);
  });

  it("no ISSN ends up in two rows", () => {
    const rows = mergeJournals(
      [
        {
          issnL: "1111-1111",
          issns: ["1111-1111", "2222-2222"],
          title: "A",
          publisher: null,
          h_index: 1,
          i10_index: 0,
          two_yr_mean_citedness: 0,
          impact_factor: null,
          works_count: 1,
        },
        {
          issnL: "3333-3333",
          issns: ["3333-3333", "2222-2222"],
          title: "B",
          publisher: null,
          h_index: 1,
          i10_index: 0,
          two_yr_mean_citedness: 0,
          impact_factor: null,
          works_count: 1,
        },
      ],
      [],
      [{ title: "C", publisher: null, issns: ["2222-2222", "4444-4444"] }],
    );
    const all = rows.flatMap((row) => row.issns);
    expect(new Set(all).size).toBe(all.length);
    expect(rows.map((row) => row.issns)).toEqual([["1111-1111", "2222-2222", "4444-4444"], ["3333-3333"]]);
  });
});

describe("runBuildJournals", () => {
  it("builds from a data folder and reports figures", async () => {
    const folder = tempDir("data-");
    const articles = join(folder, "articles");
    const journalsFolder = join(folder, "journals");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(articles);
    mkdirSync(journalsFolder);
    const works = Array.from({ length: 25 }, (_, n) => work({ year: 2021, citedIn: { 2022: n } }));
    writeFileSync(join(articles, "openalex_works.test.jsonl"), works.map((entry) => JSON.stringify(entry)).join("\n"));
    writeFileSync(
      join(journalsFolder, "doaj_journals.csv"),
      "Journal title,Journal ISSN (print version),Journal EISSN (online version),Publisher\nX,1745-6215,,BMC\n",
    );
    const outPath = join(folder, "out", "journals.json");
    const summary = await runBuildJournals({ dataRoot: folder, outPath });
    expect(summary).toEqual({
      outPath,
      metricsBasis:
        "Journal metrics are computed from the 25 OpenAlex works this service indexes that name their journal " +
        "(published in 2021, citations counted in 2022): a journal's h-index, i10-index, citedness and impact " +
        "factor count only its works among them, not its whole output, so they read far below the journal's " +
        "published figures.",
      journals: 2,
      withCitationMetrics: 1,
      withImpactFactor: 1,
      issns: 3,
      citationYear: 2022,
    });
    expect((await readJournalTable(outPath)).journals[0]).toMatchObject({
      h_index: 12,
      i10_index: 15,
      impact_factor: 12,
    });
  });
});
