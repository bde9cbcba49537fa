// The journals table built from the real data in demo-data/ (the OpenAlex SYNERGY works and DOAJ): its figures checked
// by hand, its bounds, and the commands that write and read it. Integration tier: it reads the real files (15 s).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_DATA_ROOT } from "../../src/app/config.js";
import { computeBounds, readMetricBounds, runComputeBounds } from "../../src/journals/bounds.js";
import { buildJournalTable } from "../../src/journals/build.js";
import {
  readJournalTable,
  writeJournalTable,
  type JournalRecord,
  type JournalTable,
} from "../../src/journals/table.js";
import { tempDirs } from "../support/tempDirs.js";

const tempDir = tempDirs();

const DATA_ROOT = DEFAULT_DATA_ROOT;

describe("the journals table built from the real data (OpenAlex SYNERGY works + DOAJ)", () => {
  let table: JournalTable;
  beforeAll(async () => {
    table = await buildJournalTable(DATA_ROOT);
  }, 120_000);

  const byIssn = (issn: string): JournalRecord | undefined =>
    table.journals.find((entry) => entry.issns.includes(issn));

  it("has every works journal with an ISSN and every DOAJ journal", () => {
    expect(table.citationYear).toBe(2022);
    expect(table.journals.filter((entry) => entry.h_index !== null)).toHaveLength(1917);
    expect(table.journals).toHaveLength(22_851);
    const all = table.journals.flatMap((entry) => entry.issns);
    expect(new Set(all).size).toBe(all.length);
  });

  it("American Journal of Sports Medicine: h-index 62 by hand (153 works; 62nd cited 64, 63rd 62), i10 130", () => {
    const ajsm = byIssn("1552-3365");
    expect(ajsm).toMatchObject({
      issnL: "0363-5465",
      title: "American Journal of Sports Medicine",
      works_count: 153,
      h_index: 62,
      i10_index: 130,
    });
    // 24 journal articles in 2020-2021 cited 161 times in 2022: 161 / 24
    expect(ajsm?.two_yr_mean_citedness).toBe(6.708);
    expect(ajsm?.impact_factor).toBe(6.708);
  });

  it("the h-index agrees with the works file read directly", async () => {
    const { readJsonLines } = await import("../../src/journals/readJsonLines.js");
    const counts: number[] = [];
    for await (const record of readJsonLines(join(DATA_ROOT, "articles/openalex_works.synergy.jsonl.gz"))) {
      const entry = record as {
        cited_by_count: number;
        primary_location?: { source?: { issn_l?: string } | null } | null;
      };
      if (entry.primary_location?.source?.issn_l === "0749-8063") counts.push(entry.cited_by_count);
    }
    counts.sort((a, b) => b - a);
    const h = counts.filter((count, rank) => count >= rank + 1).length;
    expect(byIssn("0749-8063")).toMatchObject({ title: "Arthroscopy", h_index: h, works_count: counts.length });
    expect(h).toBe(42);
  });

  it("impact factor only where the JIF rule allows: three journals in this sample", () => {
    expect(
      table.journals
        .filter((entry) => entry.impact_factor !== null)
        .map((entry) => entry.issnL)
        .sort(),
    ).toEqual(["0363-5465", "0749-8063", "1660-4601"]);
    // Knee Surgery, Sports Traumatology, Arthroscopy: 18 articles in 2020-2021, under 20
    expect(byIssn("0942-2056")).toMatchObject({ impact_factor: null, two_yr_mean_citedness: 4.278 });
  });

  it("DOAJ adds journals without metrics, and ISSNs to journals it shares (OpenAlex names are kept)", () => {
    expect(byIssn("1745-6215")).toMatchObject({
      title: "Trials",
      publisher: "Springer Science+Business Media",
      h_index: 9,
    });
    // Annals Academy of Medicine Singapore: OpenAlex knows 0304-4602, DOAJ adds the e-ISSN 2972-4066
    expect(byIssn("2972-4066")).toMatchObject({ issnL: "0304-4602", issns: ["0304-4602", "2972-4066"] });
    expect(byIssn("1983-9979")).toMatchObject({
      issnL: null,
      h_index: null,
      two_yr_mean_citedness: null,
      impact_factor: null,
    });
  });

  it("bounds recomputed from this small snapshot allow every threshold (it has under 35,000 ISSNs)", () => {
    const bounds = computeBounds(table.journals).bounds;
    expect(bounds["journal_metric.h_index"]).toEqual({ minGte: 0, maxLte: 62 });
    expect(bounds["journal_metric.impact_factor"]).toEqual({ minGte: 0, maxLte: 8.7 });
  });

  it("the commands write the table and the bounds, and read them back", async () => {
    const folder = tempDir("journals-");
    const outPath = join(folder, "journals.json");
    await writeJournalTable(table, outPath);
    expect((await readJournalTable(outPath)).journals).toHaveLength(table.journals.length);
    const boundsPath = join(folder, "bounds.json");
    const computed = await runComputeBounds({
      journalsPath: outPath,
      outPath: boundsPath,
      maxIssnsPerCondition: 1_000,
    });
    expect(await readMetricBounds(boundsPath)).toEqual(computed);
    expect(computed.bounds["journal_metric.h_index"].minGte).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(boundsPath, "utf8")).maxIssnsPerCondition).toBe(1_000);
  });
});
