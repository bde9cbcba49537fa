// Questions on the collection's own subjects that no document of it answers: an intervention and an outcome that each
// occur in several SciFact documents but never together in one, asked in the forms customers ask ("Does metformin
// reduce the risk of sepsis?", "metformin for the prevention of sepsis", a claim). No document names both, so none can
// address the question, and assisted search must verify nothing for it. The off-topic questions
// (offTopicQuestions.ts) test a collection asked about the wrong subject; these test rows that share the question's
// field, its outcome or its drug, but not both: a statins study for a metformin question.
// The pairs are read from the corpus on each run (the terms below, matched case-blind in titles and abstracts), every
// STEP-th pair taken in a fixed order, and split into fit and held-out halves alternately.
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** interventions: the name asked, and what it matches in a document */
const INTERVENTIONS: ReadonlyArray<readonly [string, RegExp]> = [
  ["metformin", /metformin/],
  ["statins", /statin/],
  ["aspirin", /aspirin/],
  ["vitamin D supplementation", /vitamin d\b/],
  ["vitamin E", /vitamin e\b/],
  ["zinc supplementation", /\bzinc\b/],
  ["omega-3 fatty acids", /omega-3/],
  ["melatonin", /melatonin/],
  ["lithium", /lithium/],
  ["tamoxifen", /tamoxifen/],
  ["rapamycin", /rapamycin|sirolimus/],
  ["probiotics", /probiotic/],
  ["folic acid", /folic acid|folate/],
  ["ibuprofen", /ibuprofen/],
  ["acetaminophen", /acetaminophen|paracetamol/],
  ["nicotine replacement", /nicotine/],
  ["testosterone therapy", /testosterone/],
  ["cisplatin", /cisplatin/],
  ["acupuncture", /acupuncture/],
  ["bariatric surgery", /bariatric/],
  ["corticosteroids", /corticosteroid|glucocorticoid/],
  ["antidepressants", /antidepressant/],
  ["bisphosphonates", /bisphosphonate|alendronate/],
];

/** outcomes: the name asked, and what it matches in a document */
const OUTCOMES: ReadonlyArray<readonly [string, RegExp]> = [
  ["fractures", /fractur/],
  ["dementia", /dementia|alzheimer/],
  ["depression", /depressi/],
  ["myocardial infarction", /myocardial infarction|heart attack/],
  ["stroke", /\bstroke/],
  ["breast cancer", /breast cancer|breast carcinoma/],
  ["colorectal cancer", /colorectal|colon cancer/],
  ["sepsis", /sepsis|septic/],
  ["asthma", /asthma/],
  ["hearing loss", /hearing/],
  ["malaria", /malaria/],
  ["tuberculosis", /tubercul/],
  ["preterm birth", /preterm|premature birth/],
  ["schizophrenia", /schizophren/],
  ["chronic kidney disease", /renal failure|kidney failure|kidney disease|renal disease/],
  ["influenza", /influenza/],
  ["migraine", /migraine/],
  ["lung cancer", /lung cancer|lung carcinoma/],
  ["Parkinson's disease", /parkinson/],
  ["atrial fibrillation", /atrial fibrillation/],
  ["glaucoma", /glaucoma/],
];

/** each form a customer asks in; a pair takes the next in turn (an intervention named in -s is plural) */
const FORMS: ReadonlyArray<(x: string, y: string) => string> = [
  (x, y) => `${/s$/.test(x) ? "Do" : "Does"} ${x} reduce the risk of ${y}?`,
  (x, y) => `${x} for the prevention of ${y}`,
  (x, y) => `${/s$/.test(x) ? "Are" : "Is"} ${x} associated with a lower incidence of ${y} in adults?`,
  (x, y) => `${x[0]!.toUpperCase()}${x.slice(1)} ${/s$/.test(x) ? "lower" : "lowers"} the risk of ${y}.`,
  (x, y) => `What is the effect of ${x} on ${y}?`,
];

/** Each term must occur in at least this many documents, so that the collection writes it as asked. */
const LEAST_DOCUMENTS = 4;
const STEP = 6;

export interface NearMissQuestion {
  text: string;
  set: "fit" | "heldout";
}

/** The questions, read from the SciFact corpus under the data root. */
export async function nearMissQuestions(dataRoot: string): Promise<NearMissQuestion[]> {
  const lines = (await readFile(join(dataRoot, "scifact", "corpus.jsonl"), "utf8")).split("\n").filter(Boolean);
  const documents = lines.map((line) => {
    const doc = JSON.parse(line) as { title?: string; text?: string };
    return `${doc.title ?? ""} ${doc.text ?? ""}`.toLowerCase();
  });
  const holding = (pattern: RegExp) => new Set(documents.flatMap((text, i) => (pattern.test(text) ? [i] : [])));
  const interventions = INTERVENTIONS.map(([name, pattern]) => ({ name, docs: holding(pattern) }));
  const outcomes = OUTCOMES.map(([name, pattern]) => ({ name, docs: holding(pattern) }));
  const pairs = interventions.flatMap((x) =>
    outcomes
      .filter(
        (y) =>
          x.docs.size >= LEAST_DOCUMENTS &&
          y.docs.size >= LEAST_DOCUMENTS &&
          ![...x.docs].some((doc) => y.docs.has(doc)),
      )
      .map((y) => [x.name, y.name] as const),
  );
  return pairs
    .filter((_, i) => i % STEP === 0)
    .map(([x, y], i) => ({ text: FORMS[i % FORMS.length]!(x, y), set: i % 2 === 0 ? "fit" : "heldout" }));
}
