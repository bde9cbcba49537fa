// What the judge's population rule does (a study naming only another population than the one asked about is never
// verified, src/reasoner/builtin/qualifiers.ts qualifierReader's otherPopulation): on the hand-kept qualifier pairs
// (bench/qualifierPairs.json), each document judged alone, as a collection holding nothing better would show it, with
// and without the judge's reading of qualifiers; and on the SciFact train qrels, how many relevant (claim, abstract)
// pairs the rule would call another population's (none may be). Prints one JSON line, then a readable one.
// Usage: npx tsx bench/populationVeto.ts [-- --data ../shared/data]
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { judgeCandidates } from "../src/reasoner/builtin/judge.js";
import { qualifierReader } from "../src/reasoner/builtin/qualifiers.js";

/** Whether the document names only another population than the query's: the judge never verifies it. */
const populationConflict = (query: string, title: string, text: string) =>
  qualifierReader(query)(title, text).otherPopulation;
import { understandByRules } from "../src/reasoner/builtin/understanding.js";
import { CatalogueVocabulary } from "../src/reasoner/builtin/constraints.js";
import { openEmbedder } from "../src/app/composition.js";
import { loadConfig } from "../src/app/config.js";
import type { Candidate } from "../src/reasoner/port.js";

const { values: args } = parseArgs({ options: { data: { type: "string", default: "../shared/data" } } });

interface Doc {
  title: string;
  text: string;
}
const pairs = JSON.parse(readFileSync(new URL("./qualifierPairs.json", import.meta.url), "utf8")) as {
  query: string;
  better: Doc;
  worse: Doc;
}[];

const embedder = await openEmbedder(loadConfig());
const vocabulary = new CatalogueVocabulary([]);
const now = new Date("2025-06-15T00:00:00Z");
const candidate = (doc: Doc, query: string): Candidate => ({
  id: "c",
  collection: "c",
  text: doc.text,
  section: null,
  title: doc.title,
  subQuestion: query,
  retrievalScore: 0.3,
  rank: 0,
});
const verifiedAlone = async (query: string, doc: Doc, readQualifiers: boolean) => {
  const understanding = understandByRules({ query, callerFilters: null }, { vocabulary, now });
  const [verdict] = await judgeCandidates({ embedder, readQualifiers }, query, understanding, [candidate(doc, query)]);
  return verdict!.verified;
};

const counts = {
  pairs: pairs.length,
  worseOfAnotherPopulation: 0,
  worseVerifiedBefore: 0,
  worseVerifiedAfter: 0,
  betterOfAnotherPopulation: 0,
  betterVerifiedBefore: 0,
  betterVerifiedAfter: 0,
};
for (const pair of pairs) {
  if (populationConflict(pair.query, pair.better.title, pair.better.text)) counts.betterOfAnotherPopulation += 1;
  if (await verifiedAlone(pair.query, pair.better, false)) counts.betterVerifiedBefore += 1;
  if (await verifiedAlone(pair.query, pair.better, true)) counts.betterVerifiedAfter += 1;
  if (!populationConflict(pair.query, pair.worse.title, pair.worse.text)) continue;
  counts.worseOfAnotherPopulation += 1;
  if (await verifiedAlone(pair.query, pair.worse, false)) counts.worseVerifiedBefore += 1;
  if (await verifiedAlone(pair.query, pair.worse, true)) counts.worseVerifiedAfter += 1;
}

// SciFact: relevant abstracts the rule would call another population's
const dir = join(args.data, "scifact");
const corpus = new Map<string, Doc>();
for (const line of readFileSync(join(dir, "corpus.jsonl"), "utf8").split("\n").filter(Boolean)) {
  const d = JSON.parse(line) as { _id: string; title: string; text: string };
  corpus.set(d._id, { title: d.title, text: d.text });
}
const claims = new Map<string, string>();
for (const line of readFileSync(join(dir, "queries.jsonl"), "utf8").split("\n").filter(Boolean)) {
  const q = JSON.parse(line) as { _id: string; text: string };
  claims.set(q._id, q.text);
}
let relevant = 0;
let relevantOfAnotherPopulation = 0;
for (const line of readFileSync(join(dir, "qrels", "train.tsv"), "utf8")
  .split(/\r?\n/)
  .slice(1)
  .filter(Boolean)) {
  const [queryId, docId] = line.split("\t");
  const doc = corpus.get(docId!);
  const claim = claims.get(queryId!);
  if (!doc || !claim) continue;
  relevant += 1;
  if (populationConflict(claim, doc.title, doc.text)) relevantOfAnotherPopulation += 1;
}
await embedder.close();

const result = {
  machine: { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length },
  qualifierPairs: counts,
  scifact: { relevantPairs: relevant, relevantOfAnotherPopulation },
};
console.log(JSON.stringify(result));
console.log(
  `population rule: of ${counts.worseOfAnotherPopulation} hand-kept documents of another population, judged alone, ` +
    `${counts.worseVerifiedBefore} verified before and ${counts.worseVerifiedAfter} now; the ${counts.pairs} better ` +
    `documents ${counts.betterVerifiedBefore} before, ${counts.betterVerifiedAfter} now ` +
    `(${counts.betterOfAnotherPopulation} of another population); SciFact: ${relevantOfAnotherPopulation} of ` +
    `${relevant} relevant pairs read as another population`,
);
