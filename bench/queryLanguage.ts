// How well the question-language rule (src/text/queryLanguage.ts) tells other languages from English: recall and the
// language named on the labelled foreign questions (bench/queryLanguages.ts), and how many English texts it would
// wrongly refuse: the labelled English questions with foreign words, the question sets of the other benchmarks, the
// SciFact train claims and the shipped MEDLINE titles (English, also for articles in other languages); the shipped
// OpenAlex titles, which hold some in other languages, are counted and those read as foreign listed, to be read.
// Prints one JSON line, then a readable one. Usage: npm run bench:query-language [-- --data ../shared/data]
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { foreignLanguageOf } from "../src/text/queryLanguage.js";
import { ENGLISH_WITH_FOREIGN_WORDS, FOREIGN_QUESTIONS } from "./queryLanguages.js";
import { SPECIFIC_QUERIES, VAGUE_QUERIES } from "./clarificationQueries.js";
import { OFF_TOPIC_QUESTIONS } from "./offTopicQuestions.js";

const { values: args } = parseArgs({ options: { data: { type: "string", default: "../shared/data" } } });

const foreign = FOREIGN_QUESTIONS.map((q) => ({ ...q, read: foreignLanguageOf(q.query) }));
const englishSets: Record<string, readonly string[]> = {
  "English with foreign words": ENGLISH_WITH_FOREIGN_WORDS,
  "specific questions": SPECIFIC_QUERIES,
  "vague questions": VAGUE_QUERIES,
  "off-topic questions": OFF_TOPIC_QUESTIONS,
};

/** SciFact train claims. */
function scifactClaims(dir: string): string[] {
  const lines = readFileSync(join(dir, "scifact", "queries.jsonl"), "utf8")
    .split(/\r?\n/)
    .filter(Boolean);
  return lines.map((line) => (JSON.parse(line) as { text: string }).text);
}

/** OpenAlex titles with the language OpenAlex gives the work (null where it gives none). */
function openAlexTitles(dir: string): { title: string; language: string | null }[] {
  const raw = gunzipSync(readFileSync(join(dir, "articles", "openalex_works.synergy.jsonl.gz"))).toString("utf8");
  return raw
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { title?: string | null; language?: string | null })
    .filter((w) => typeof w.title === "string" && w.title.length > 0)
    .map((w) => ({ title: w.title!, language: w.language ?? null }));
}

/** MEDLINE ArticleTitles with the record's Language. */
function medlineTitles(dir: string): { title: string; language: string | null }[] {
  const xml = gunzipSync(readFileSync(join(dir, "articles", "pubmed_medline16n0902_sample.xml.gz"))).toString("utf8");
  const out: { title: string; language: string | null }[] = [];
  for (const article of xml.split(/<MedlineCitation[\s>]/).slice(1)) {
    const title = /<ArticleTitle>([\s\S]*?)<\/ArticleTitle>/.exec(article)?.[1]?.replace(/<[^>]+>/g, "");
    if (title) out.push({ title, language: /<Language>(\w+)<\/Language>/.exec(article)?.[1] ?? null });
  }
  return out;
}

const englishCounts: Record<string, { texts: number; readAsForeign: number; examples: string[] }> = {};
const count = (name: string, texts: readonly string[]) => {
  const wrong = texts.filter((t) => foreignLanguageOf(t) !== null);
  englishCounts[name] = { texts: texts.length, readAsForeign: wrong.length, examples: wrong.slice(0, 8) };
};
for (const [name, texts] of Object.entries(englishSets)) count(name, texts);
count("SciFact train claims", scifactClaims(args.data));
// MEDLINE gives each record's language (its title is English, bracketed, for an article in another); these OpenAlex
// records give none, so their titles read as another language are listed to be read
const medline = medlineTitles(args.data);
count(
  "MEDLINE titles",
  medline.map((t) => t.title),
);
const openAlex = openAlexTitles(args.data).map((t) => t.title);
const openAlexForeign = openAlex.filter((t) => foreignLanguageOf(t) !== null);
const otherTitles = medline.filter((t) => t.language !== null && t.language !== "eng");

const recall = foreign.filter((q) => q.read !== null).length / foreign.length;
const named = foreign.filter((q) => q.read === q.language).length / foreign.length;
const englishTexts = Object.values(englishCounts).reduce((n, c) => n + c.texts, 0);
const englishWrong = Object.values(englishCounts).reduce((n, c) => n + c.readAsForeign, 0);
const result = {
  machine: { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length },
  foreignQuestions: foreign.length,
  foreignRecall: Number(recall.toFixed(3)),
  languageNamed: Number(named.toFixed(3)),
  missed: foreign.filter((q) => q.read === null).map((q) => q.query),
  misnamed: foreign.filter((q) => q.read !== null && q.read !== q.language).map((q) => `${q.query} -> ${q.read}`),
  englishTexts,
  englishReadAsForeign: englishWrong,
  english: englishCounts,
  medlineArticlesInOtherLanguages: otherTitles.length,
  openAlexTitles: { texts: openAlex.length, readAsForeign: openAlexForeign.length, listed: openAlexForeign },
};
console.log(JSON.stringify(result));
console.log(
  `question language: ${foreign.length} foreign questions, ${(recall * 100).toFixed(1)}% read as not English ` +
    `(${(named * 100).toFixed(1)}% named right); ${englishWrong} of ${englishTexts} English texts read as another ` +
    `language; ${openAlexForeign.length} of ${openAlex.length} OpenAlex titles read as another language (listed)`,
);
