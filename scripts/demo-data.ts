// Builds demo-data/, the demo collections' source data shipped in the repository, from the public originals (by
// default ../shared/data): the same folders and file names, each file holding only what the readers use, so a
// fresh clone serves the demo alone. test/ingest/demoData.shared.spec.ts reads both copies with the readers and
// expects the same documents, notices and journals.
//   npx tsx scripts/demo-data.ts [--from DIR] [--to DIR]
import { createReadStream, createWriteStream, mkdirSync, realpathSync } from "node:fs";
import { copyFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip, constants } from "node:zlib";
import { parseArgs } from "node:util";
import { parse } from "csv-parse";
import { DEFAULT_DATA_ROOT } from "../src/app/config.js";

const { values } = parseArgs({
  options: {
    from: { type: "string", default: join(import.meta.dirname, "..", "..", "shared", "data") },
    to: { type: "string", default: DEFAULT_DATA_ROOT },
  },
});
const from = realpathSync(values.from!);
mkdirSync(values.to!, { recursive: true });
const to = realpathSync(values.to!);
if (from === to || to.startsWith(`${from}/`) || from.startsWith(`${to}/`))
  throw new Error(`--from ${from} and --to ${to} overlap: the copy would overwrite its originals`);

type Json = Record<string, unknown>;
const pick = (value: unknown, keys: readonly string[]): Json | null => {
  if (!value || typeof value !== "object") return (value as null) ?? null;
  const out: Json = {};
  for (const key of keys) if (key in (value as Json)) out[key] = (value as Json)[key];
  return out;
};

/** An OpenAlex location without the fields no reader reads. */
const location = (value: unknown): Json | null => {
  const kept = pick(value, ["is_oa", "landing_page_url", "pdf_url", "license", "version", "source"]);
  if (kept?.source)
    kept.source = pick(kept.source, ["id", "display_name", "issn_l", "issn", "host_organization_name", "type"]);
  return kept;
};

/**
 * An OpenAlex work without the deprecated duplicates (host_venue, alternate_host_venues, locations), API links and
 * affiliations.
 */
function compactWork(work: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(work)) {
    switch (key) {
      case "host_venue":
      case "alternate_host_venues":
      case "locations":
      case "cited_by_api_url":
      case "ngrams_url":
      case "display_name": // the title, again
      case "is_authors_truncated":
        break;
      case "primary_location":
      case "best_oa_location":
        out[key] = location(value);
        break;
      case "authorships":
        out[key] =
          (value as Json[] | null)?.map((a) => ({
            author_position: a.author_position,
            author: pick(a.author, ["id", "display_name", "orcid"]),
          })) ?? null;
        break;
      case "concepts":
        out[key] = (value as Json[] | null)?.map((c) => pick(c, ["id", "display_name", "level", "score"])) ?? null;
        break;
      default:
        out[key] = value;
    }
  }
  return out;
}

/** An open-retractions record without the notice's title and publisher (no reader reads them). */
const compactUpdateRecord = (record: Json): Json =>
  pick(record, ["retracted", "timestamp", "updates", "identifier", "journal"])!;

async function* jsonLines(path: string): AsyncGenerator<Json> {
  const input = createReadStream(path);
  const lines = createInterface({
    input: path.endsWith(".gz") ? input.pipe(createGunzip()) : input,
    crlfDelay: Infinity,
  });
  for await (const line of lines) if (line.trim()) yield JSON.parse(line) as Json;
}

async function writeJsonLines(
  path: string,
  records: AsyncIterable<Json>,
  compact: (record: Json) => Json,
): Promise<number> {
  await mkdir(dirname(path), { recursive: true });
  let count = 0;
  async function* text() {
    for await (const record of records) {
      count += 1;
      yield `${JSON.stringify(compact(record))}\n`;
    }
  }
  const output = createWriteStream(`${path}.tmp`);
  if (path.endsWith(".gz")) await pipeline(text(), createGzip({ level: constants.Z_BEST_COMPRESSION }), output);
  else await pipeline(text(), output);
  await rename(`${path}.tmp`, path);
  return count;
}

/**
 * The Retraction Watch sample with the columns the reader uses (the institutions, notes and ROR and funder matches left
 * out).
 */
async function compactRetractionWatch(source: string, target: string): Promise<number> {
  const keep = [
    "articletype",
    "retractiondate",
    "retractiondoi",
    "originalpaperdate",
    "originalpaperdoi",
    "retractionnature",
    "reason",
    "container",
    "publisher",
  ];
  const rows: string[][] = [];
  const parser = createReadStream(source).pipe(
    parse({ columns: true, skip_empty_lines: true, relax_column_count: true }),
  );
  for await (const row of parser as AsyncIterable<Record<string, string>>)
    rows.push(keep.map((column) => row[column] ?? ""));
  const quoted = (value: string) => (/[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  await writeFile(`${target}.tmp`, [keep, ...rows].map((row) => `${row.map(quoted).join(",")}\n`).join(""));
  await rename(`${target}.tmp`, target);
  return rows.length;
}

const copy = async (relative: string) => {
  await mkdir(dirname(join(to, relative)), { recursive: true });
  await copyFile(join(from, relative), join(to, relative));
};

const report: Record<string, number | string> = {};
report.openalex = await writeJsonLines(
  join(to, "articles/openalex_works.synergy.jsonl.gz"),
  jsonLines(join(from, "articles/openalex_works.synergy.jsonl.gz")),
  compactWork,
);
await copy("articles/pubmed_medline16n0902_sample.xml.gz");
for (const review of [
  "Chou_2004",
  "Donners_2021",
  "Jeyaraman_2020",
  "Meijboom_2021",
  "Menon_2022",
  "Muthu_2022",
  "Nelson_2002",
  "Oud_2018",
  "Sep_2021",
  "van_der_Valk_2021",
])
  await copy(`articles/synergy_labels/${review}.labels.csv`);
await copy("scifact/corpus.jsonl");
await copy("scifact/queries.jsonl");
await copy("scifact/qrels/train.tsv");
report.allUpdates = await writeJsonLines(
  join(to, "retractions/open_retractions.all_updates.jsonl.gz"),
  jsonLines(join(from, "retractions/open_retractions.all_updates.jsonl.gz")),
  compactUpdateRecord,
);
report.retracted = await writeJsonLines(
  join(to, "retractions/open_retractions.retracted.jsonl"),
  jsonLines(join(from, "retractions/open_retractions.retracted.jsonl")),
  compactUpdateRecord,
);
report.retractionWatch = await compactRetractionWatch(
  join(from, "retractions/retraction_watch_etl_sampled.csv"),
  join(to, "retractions/retraction_watch_etl_sampled.csv"),
);
await copy("journals/doaj_journals.csv");
await copy("journals/doaj_withdrawn_journals.csv");
// each folder's README keeps the originals' provenance and licence, with what the copy leaves out
for (const folder of ["articles", "scifact", "retractions", "journals"]) {
  const original = await readFile(join(from, folder, "README.md"), "utf8");
  const note = (await readFile(join(import.meta.dirname, "demo-data-notes", `${folder}.md`), "utf8")).trim();
  await writeFile(join(to, folder, "README.md"), `${note}\n\n---\n\n${original}`);
}
console.log(JSON.stringify(report));
