// What the judge's title rule for qualifiers does (a study whose title contradicts a qualifier of the question, "with
// inhibitors" against "...without Inhibitors", "without osteotomy" against "...After High Tibial Osteotomy", is never
// verified: src/reasoner/builtin/qualifiers.ts qualifierReader's titleConflict). It may cost recall only where a
// relevant work's title trips it, so it is counted on labels it was not written against: SciFact's relevant (claim,
// abstract) pairs (train, the split shipped), and each SYNERGY review's included works under our four phrasings of the
// review's need (bench/synergyQuestions.json); each SYNERGY hit is printed, to be read. Then the rows an outside audit
// read and labelled (4 Dec 2026), which the rule was written after: not held out. Prints one JSON line, then a readable
// one. Usage: npx tsx bench/qualifierTitles.ts [-- --data ../shared/data]
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { qualifierReader } from "../src/reasoner/builtin/qualifiers.js";

/** Whether the title alone contradicts a qualifier of the question: the judge never verifies such a row. */
const titleQualifierConflict = (question: string, title: string) => qualifierReader(question)(title, "").titleConflict;

const { values: args } = parseArgs({ options: { data: { type: "string", default: "../shared/data" } } });

const lines = (path: string) => readFileSync(path, "utf8").split(/\r?\n/).filter(Boolean);

// SciFact: relevant abstracts whose title the rule would contradict with their claim
const scifactDir = join(args.data, "scifact");
const titles = new Map<string, string>();
for (const line of lines(join(scifactDir, "corpus.jsonl"))) {
  const d = JSON.parse(line) as { _id: string; title: string };
  titles.set(d._id, d.title);
}
const claims = new Map<string, string>();
for (const line of lines(join(scifactDir, "queries.jsonl"))) {
  const q = JSON.parse(line) as { _id: string; text: string };
  claims.set(q._id, q.text);
}
const scifact = { relevantPairs: 0, vetoed: 0 };
for (const split of ["train"]) {
  for (const line of lines(join(scifactDir, "qrels", `${split}.tsv`)).slice(1)) {
    const [queryId, docId] = line.split("\t");
    const claim = claims.get(queryId!);
    const title = titles.get(docId!);
    if (!claim || title === undefined) continue;
    scifact.relevantPairs += 1;
    if (titleQualifierConflict(claim, title)) scifact.vetoed += 1;
  }
}

// SYNERGY: each review's included works under each phrasing of its need
const works = new Map<string, string>();
for (const line of gunzipSync(readFileSync(join(args.data, "articles", "openalex_works.synergy.jsonl.gz")))
  .toString("utf8")
  .split("\n")
  .filter(Boolean)) {
  const w = JSON.parse(line) as { id: string; title?: string | null; display_name?: string | null };
  const title = w.title ?? w.display_name;
  if (title) works.set(w.id.replace("https://openalex.org/", ""), title);
}
const needs = JSON.parse(readFileSync(new URL("./synergyQuestions.json", import.meta.url), "utf8")) as {
  reviews: Array<{ review: string } & Record<string, Record<string, string> | string>>;
};
const synergy = { phrasings: 0, includedPairs: 0, vetoed: 0 };
const synergyHits: { review: string; phrasing: string; title: string }[] = [];
for (const entry of needs.reviews) {
  const included = lines(join(args.data, "articles", "synergy_labels", `${entry.review}.labels.csv`))
    .slice(1)
    .map((l) => l.split(","))
    .filter((cols) => cols[3] === "1")
    .map((cols) => works.get(cols[0]!.replace("https://openalex.org/", "")))
    .filter((t): t is string => t !== undefined);
  for (const set of ["fit", "heldout"]) {
    const phrasings = entry[set];
    if (!phrasings || typeof phrasings === "string") continue;
    for (const phrasing of Object.values(phrasings)) {
      synergy.phrasings += 1;
      for (const title of included) {
        synergy.includedPairs += 1;
        if (!titleQualifierConflict(phrasing, title)) continue;
        synergy.vetoed += 1;
        synergyHits.push({ review: entry.review, phrasing, title });
      }
    }
  }
}

// the audit's rows for its "with" and "without" questions, as it labelled them (relevant or not)
const A01 =
  "Does emicizumab prophylaxis reduce bleeding rates in people with hemophilia A with factor VIII inhibitors?";
const A19 = "Outcomes of stem cell therapy for knee osteoarthritis without high tibial osteotomy";
const audit: { question: string; title: string; relevant: boolean }[] = [
  {
    question: A01,
    title: "Emicizumab Prophylaxis in Patients Who Have Hemophilia A without Inhibitors",
    relevant: false,
  },
  {
    question: A01,
    title: "Severe Bleeding Events in Hemophilia A Patients Receiving Emicizumab Prophylaxis",
    relevant: true,
  },
  { question: A01, title: "Emicizumab Prophylaxis in Hemophilia A with Inhibitors", relevant: true },
  {
    question: A01,
    title:
      "A multicenter, open-label phase 3 study of emicizumab prophylaxis in children with hemophilia A with inhibitors",
    relevant: true,
  },
  {
    question: A19,
    title:
      "High Tibial Osteotomy in Combination With Chondrogenesis After Stem Cell Therapy: A Histologic Report of 8 " +
      "Cases",
    relevant: false,
  },
  {
    question: A19,
    title:
      "Injectable Cultured Bone Marrow-Derived Mesenchymal Stem Cells in Varus Knees With Cartilage Defects " +
      "Undergoing " +
      "High Tibial Osteotomy: A Prospective, Randomized Controlled Clinical Trial With 2 Years' Follow-up",
    relevant: false,
  },
  {
    question: A19,
    title:
      "Allogenic Human Umbilical Cord Blood-Derived Mesenchymal Stem Cells Are More Effective Than Bone Marrow " +
      "Aspiration Concentrate for Cartilage Regeneration After High Tibial Osteotomy in Medial Unicompartmental " +
      "Osteoarthritis of Knee",
    relevant: false,
  },
  {
    question: A19,
    title:
      "Intra-Articular Injection of Mesenchymal Stem Cells for the Treatment of Osteoarthritis of the Knee: A " +
      "Proof-of-Concept Clinical Trial",
    relevant: true,
  },
];
const auditCounts = {
  notRelevant: audit.filter((a) => !a.relevant).length,
  notRelevantVetoed: audit.filter((a) => !a.relevant && titleQualifierConflict(a.question, a.title)).length,
  relevant: audit.filter((a) => a.relevant).length,
  relevantVetoed: audit.filter((a) => a.relevant && titleQualifierConflict(a.question, a.title)).length,
};

console.log(
  JSON.stringify({
    machine: { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length },
    scifact,
    synergy: { ...synergy, hits: synergyHits },
    audit: auditCounts,
  }),
);
console.log(
  `title rule: SciFact ${scifact.vetoed} of ${scifact.relevantPairs} relevant pairs vetoed; ` +
    `SYNERGY ${synergy.vetoed} of ` +
    `${synergy.includedPairs} (phrasing, included work) pairs over ${synergy.phrasings} phrasings; the audit's rows ` +
    `(not held out): ${auditCounts.notRelevantVetoed} of ${auditCounts.notRelevant} not relevant vetoed, ` +
    `${auditCounts.relevantVetoed} of ${auditCounts.relevant} relevant`,
);
