// Data for the retrieval tests: slices of the real sources that also hold retracted articles (flagged by OpenAlex,
// and one whose DOI is on the retraction lists), a fragment-only document, and a configuration that adds a scholarly
// MEDLINE collection so the DOI rule is exercised on a scholarly collection.
import { createReadStream, createWriteStream, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip, createGzip, gunzipSync } from "node:zlib";
import { REPO_ROOT } from "../../src/app/config.js";
import { SHARED_DATA } from "../support/testService.js";
import { tempDirs } from "../support/tempDirs.js";

// registered when a test file loads this module: the data roots go after the file's tests
const tempDir = tempDirs();

/** OpenAlex works flagged is_retracted (present in the SYNERGY file). */
export const RETRACTED_WORKS = [
  {
    docId: "W4237923007",
    title:
      "Use of Virtual Reality for the Management of Anxiety and Pain in Dental Treatments: Systematic Review " +
      "and Meta-Analysis",
  },
  {
    docId: "W2887538138",
    title:
      "Platelet-derived growth factor subunit B is required for tendon-bone healing using bone marrow-derived " +
      "mesenchymal stem cells after rotator cuff repair",
  },
];
/** A MEDLINE citation of the sample whose DOI is on the open-retractions list. */
export const RETRACTED_CITATION = {
  pmid: "26702166",
  doi: "10.11622/smedj.2015191",
  title: "A handy way to handle hemoclips(®) in surgeries.",
};
/** A SciFact-format document whose only text is a heading: it must never be indexed or returned. */
export const FRAGMENT_DOC = { _id: "fragment-only-1", title: "Telomerase heading", text: "Methods." };
/** The added scholarly collection over the MEDLINE slice. */
export const SCHOLARLY_MEDLINE = "medline-scholarly";

const DOCS = 60;

async function firstLines(path: string, n: number, gz: boolean): Promise<string[]> {
  const input = gz ? createReadStream(path).pipe(createGunzip()) : createReadStream(path);
  const lines: string[] = [];
  for await (const line of createInterface({ input })) {
    if (lines.length >= n) break;
    lines.push(line);
  }
  input.destroy();
  return lines;
}

async function writeGzip(path: string, text: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const out = createGzip();
    out.pipe(createWriteStream(path)).on("finish", resolve).on("error", reject);
    out.end(text);
  });
}

/** The first `n` MEDLINE citations plus the one with the retracted DOI, as a valid MedlineCitationSet. */
function medlineSlice(n: number): string {
  const xml = gunzipSync(readFileSync(join(SHARED_DATA, "articles", "pubmed_medline16n0902_sample.xml.gz"))).toString(
    "utf8",
  );
  const starts: number[] = [];
  for (let i = xml.indexOf("<MedlineCitation "); i >= 0; i = xml.indexOf("<MedlineCitation ", i + 1)) starts.push(i);
  const end = xml.lastIndexOf("</MedlineCitationSet>");
  const block = (k: number): string => xml.slice(starts[k]!, k + 1 < starts.length ? starts[k + 1]! : end);
  const retracted = starts.findIndex((_, k) => block(k).includes(`>${RETRACTED_CITATION.pmid}</PMID>`));
  if (retracted < 0) throw new Error(`MEDLINE sample lacks PMID ${RETRACTED_CITATION.pmid}`);
  const kept = [...Array(n).keys(), ...(retracted >= n ? [retracted] : [])];
  return `${xml.slice(0, starts[0]!)}${kept.map(block).join("")}</MedlineCitationSet>\n`;
}

export async function retrievalDataRoot(): Promise<string> {
  const root = tempDir("litsearch-retrieval-data-");
  mkdirSync(join(root, "scifact"));
  mkdirSync(join(root, "articles"));
  const scifact = await firstLines(join(SHARED_DATA, "scifact", "corpus.jsonl"), DOCS, false);
  writeFileSync(
    join(root, "scifact", "corpus.jsonl"),
    [...scifact, JSON.stringify({ ...FRAGMENT_DOC, metadata: {} })].join("\n") + "\n",
  );

  const openAlexPath = join(SHARED_DATA, "articles", "openalex_works.synergy.jsonl.gz");
  const works = await firstLines(openAlexPath, DOCS, true);
  const wanted = new Set(RETRACTED_WORKS.map((w) => `https://openalex.org/${w.docId}`));
  const input = createReadStream(openAlexPath).pipe(createGunzip());
  for await (const line of createInterface({ input })) {
    // the id leads each record, written with or without a space after the colon
    const id = /^\{"id": ?"([^"]+)"/.exec(line)?.[1];
    if (id && wanted.has(id)) works.push(line);
  }
  await writeGzip(join(root, "articles", "openalex_works.synergy.jsonl.gz"), works.join("\n") + "\n");
  await writeGzip(join(root, "articles", "pubmed_medline16n0902_sample.xml.gz"), medlineSlice(DOCS));
  symlinkSync(join(SHARED_DATA, "retractions"), join(root, "retractions"));
  symlinkSync(join(SHARED_DATA, "journals"), join(root, "journals"));
  return root;
}

/** The repository's collections plus a scholarly, sparse MEDLINE collection; written beside the data. */
export function retrievalCollectionsConfig(dataRoot: string): string {
  const config = JSON.parse(readFileSync(join(REPO_ROOT, "config", "collections.json"), "utf8")) as {
    collections: unknown[];
  };
  config.collections.push({
    name: SCHOLARLY_MEDLINE,
    displayName: "MEDLINE sample (scholarly)",
    description: "The MEDLINE sample as a scholarly collection, for the retraction rule.",
    kind: "scholarly",
    retrieval: "sparse",
    pricePer1000: "0.020",
    openAccessOnly: false,
    scanFilterable: true,
    source: { reader: "medline", files: ["articles/pubmed_medline16n0902_sample.xml.gz"] },
  });
  const path = join(dataRoot, "collections.test.json");
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}
