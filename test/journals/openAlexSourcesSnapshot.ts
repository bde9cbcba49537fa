// Writes an OpenAlex `sources` snapshot folder for tests, in the open snapshot's exact layout and record format
// (data/sources/updated_date=YYYY-MM-DD/part_NNN.gz, gzipped JSON Lines, plus the manifest), with known statistics.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

export interface KnownJournal {
  issnL: string;
  issns: string[];
  title: string;
  publisher: string;
}

/** What each written source says, as the journals table must read it back. */
export interface FixtureSource {
  issnL: string | null;
  issns: string[];
  title: string;
  publisher: string | null;
  hIndex: number;
  i10Index: number;
  citedness: number;
  worksCount: number;
}

/**
 * ISSN-shaped "9NNN-NNNX" strings no real journal of the demo data uses (check digits not computed; filters do not
 * verify them).
 */
function syntheticIssn(n: number, second = false): string {
  const digits = String(n * 2 + (second ? 1 : 0)).padStart(7, "0");
  return `9${digits.slice(0, 3)}-${digits.slice(3)}`;
}

/**
 * `count` journal sources (the `known` journals first, with their real ISSNs and names, then synthetic ones), plus two
 * sources a journals table must skip (a repository without ISSN, an ebook platform with an empty ISSN list), spread
 * over two `updated_date` partitions. Statistics are a fixed function of the position, so every run writes the same
 * bytes. `hIndexOfKnown(i)` sets the h-index of the i-th known journal.
 */
export function writeOpenAlexSourcesSnapshot(
  folder: string,
  options: { count: number; known?: readonly KnownJournal[]; hIndexOfKnown?: (i: number) => number },
): FixtureSource[] {
  const known = options.known ?? [];
  const expected: FixtureSource[] = [];
  const records: Record<string, unknown>[] = [];
  for (let n = 0; n < options.count; n += 1) {
    const real = known[n];
    const issnL = real ? real.issnL : syntheticIssn(n);
    const issns = real ? [...new Set([real.issnL, ...real.issns])] : [issnL, syntheticIssn(n, true)];
    const hIndex = real && options.hIndexOfKnown ? options.hIndexOfKnown(n) : (n * 37) % 400;
    const i10Index = hIndex * 3 + (n % 11);
    const citedness = ((n * 53) % 1000) / 100 + 0.0004; // four decimals: the table keeps three
    const worksCount = 200 + ((n * 131) % 9000);
    const title = real?.title ?? `Fixture Journal of Topic ${n}`;
    const publisher = real ? real.publisher : n % 5 === 0 ? null : `Fixture Press ${n % 7}`;
    expected.push({
      issnL,
      issns,
      title,
      publisher,
      hIndex,
      i10Index,
      citedness: Math.round(citedness * 1000) / 1000,
      worksCount,
    });
    records.push({
      id: `https://openalex.org/S${4_000_000_000 + n}`,
      issn_l: issnL,
      issn: issns,
      display_name: title,
      host_organization: publisher ? `https://openalex.org/P${4_310_000_000 + (n % 7)}` : null,
      host_organization_name: publisher,
      host_organization_lineage: publisher ? [`https://openalex.org/P${4_310_000_000 + (n % 7)}`] : [],
      works_count: worksCount,
      cited_by_count: worksCount * (3 + (n % 9)),
      summary_stats: { "2yr_mean_citedness": citedness, h_index: hIndex, i10_index: i10Index },
      is_oa: n % 4 === 0,
      is_in_doaj: n % 4 === 0,
      is_core: true,
      homepage_url: `https://journal-${n}.example.org`,
      apc_prices: null,
      apc_usd: null,
      country_code: ["US", "GB", "NL", "DE"][n % 4],
      societies: [],
      alternate_titles: [],
      abbreviated_title: null,
      type: "journal",
      topics: [],
      counts_by_year: [2023, 2022, 2021].map((year, k) => ({
        year,
        works_count: Math.floor(worksCount / (20 + k)),
        cited_by_count: Math.floor((worksCount * (3 + (n % 9))) / (12 + k)),
      })),
      works_api_url: `https://api.openalex.org/works?filter=primary_location.source.id:S${4_000_000_000 + n}`,
      updated_date: "2024-01-30T05:05:26.513829",
      created_date: "2016-06-24",
    });
  }
  // sources the table cannot key: no ISSN at all
  records.push({
    id: "https://openalex.org/S4399999998",
    issn_l: null,
    issn: null,
    display_name: "A Repository",
    type: "repository",
    works_count: 90_000,
    summary_stats: { "2yr_mean_citedness": 0.1, h_index: 40, i10_index: 500 },
    counts_by_year: [],
  });
  records.push({
    id: "https://openalex.org/S4399999999",
    issn_l: null,
    issn: [],
    display_name: "An Ebook Platform",
    type: "ebook platform",
    works_count: 5_000,
    summary_stats: { "2yr_mean_citedness": 0, h_index: 2, i10_index: 0 },
    counts_by_year: [],
  });

  const partitions = [
    { dir: "updated_date=2024-01-30", records: records.filter((_, i) => i % 2 === 0) },
    { dir: "updated_date=2024-02-14", records: records.filter((_, i) => i % 2 === 1) },
  ];
  const entries: { url: string; meta: { content_length: number; record_count: number } }[] = [];
  for (const partition of partitions) {
    mkdirSync(join(folder, partition.dir), { recursive: true });
    // two parts per partition, as the snapshot splits large partitions
    const half = Math.ceil(partition.records.length / 2);
    for (const [part, slice] of [partition.records.slice(0, half), partition.records.slice(half)].entries()) {
      const bytes = gzipSync(slice.map((record) => JSON.stringify(record)).join("\n") + "\n");
      const name = `part_${String(part).padStart(3, "0")}.gz`;
      writeFileSync(join(folder, partition.dir, name), bytes);
      entries.push({
        url: `s3://openalex/data/sources/${partition.dir}/${name}`,
        meta: { content_length: bytes.length, record_count: slice.length },
      });
    }
  }
  writeFileSync(
    join(folder, "manifest"),
    JSON.stringify(
      {
        entries,
        meta: { content_length: entries.reduce((s, e) => s + e.meta.content_length, 0), record_count: records.length },
      },
      null,
      2,
    ),
  );
  return expected;
}
