// The samples the relevance model (src/retrieval/relevanceModel.json) is fitted and checked on: for every query of
// SciFact train (claims) and of our phrasings of the ten SYNERGY reviews' needs (bench/synergyQuestions.json,
// questions and keywords, 'fit' and 'heldout'), in each retrieval mode, the first 30 chunks that the service's
// retrieval step returns, with the reranker's inputs and whether the chunk's work answers the request. Two more sets
// fill the gaps of those: each SciFact claim as keywords (its words without stop words and punctuation: the same
// need and judgements in another form), and requests asked of the collection that cannot answer them (SYNERGY
// phrasings of SciFact, 100 SciFact claims of openalex-synergy; every row a 0), so that a list's best row is
// not taken as relevant because it is its list's best. And rare three-word phrases of SciFact asked as keywords,
// answered by the documents that hold them (what a reader who types a rare phrase expects: no exact match hidden).
// SciFact: the document is judged relevant to the claim (qrels/train.tsv). SYNERGY: the work was included in that
// review (label_included = 1); a work only screened for it (in its candidate set) is not, since every candidate is
// on the review's topic and "on topic" is not "answers the request".
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { openEmbedder } from "../src/app/composition.js";
import type { OnnxEmbedder } from "../src/embedding/onnxEmbedder.js";
import { createEmbeddedEngine } from "../src/retrieval/engines/embedded/embeddedEngine.js";
import type { RetrievalMode, SearchEngine } from "../src/retrieval/port.js";
import type { QueryForm } from "../src/retrieval/relevance.js";
import { searchCollections } from "../src/usecases/search/collectionSearch.js";
import { ENGLISH_STOP_WORDS, tokenizeStandard } from "../src/text/englishAnalyzer.js";
import { benchCollection, benchConfig, ingestBenchCollection, loadScifactJudgements } from "./scifactBench.js";
import type { Config } from "../src/app/config.js";
import { REPO_ROOT } from "../src/app/config.js";

export const MODES: RetrievalMode[] = ["sparse", "dense", "hybrid"];
/** chunks per query and mode: the most a default search page shows three times over */
export const SAMPLE_DEPTH = 30;
/** rare phrases asked as requests, half of them fit and half held out */
export const RARE_PHRASES = 120;

/** where a request's labels come from: SciFact judgements, SYNERGY inclusions, or the documents holding a phrase */
export type Dataset = "scifact" | "synergy" | "phrase";
export type Split = "fit" | "heldout";

export interface RelevanceQuery {
  id: string;
  /** where the request comes from (its labels) */
  dataset: Dataset;
  /** the collection it is asked of; another than `dataset`'s for the off-collection requests */
  asked: "scifact" | "synergy";
  split: Split;
  form: QueryForm;
  /** the SYNERGY review whose need it phrases; the SciFact claim id otherwise */
  need: string;
  text: string;
  /** ids (doc_id) of the works that answer it */
  answers: ReadonlySet<string>;
}

export interface RelevanceSample {
  query: string;
  mode: RetrievalMode;
  rank: number;
  docId: string;
  score: number;
  /** the best score of the same list */
  best: number;
  dense?: number;
  /** what the reranker said when the samples were drawn */
  relevance: number;
  label: 0 | 1;
}

interface SynergyPhrasing {
  question: string;
  keywords: string;
}

/** SciFact train claims (every query is a fit one) and the SYNERGY phrasings with their reviews' included works. */
export async function loadRelevanceQueries(config: Config): Promise<RelevanceQuery[]> {
  const { queries, relevant } = await loadScifactJudgements(config.dataRoot);
  const out: RelevanceQuery[] = [];
  for (const q of queries) {
    const claim = {
      dataset: "scifact",
      asked: "scifact",
      split: "fit",
      need: q.id,
      answers: relevant.get(q.id)!,
    } as const;
    out.push({ ...claim, id: `scifact:${q.id}`, form: "claim", text: q.text });
    out.push({ ...claim, id: `scifact:${q.id}:keywords`, form: "keywords", text: keywordsOf(q.text) });
  }
  for (const q of queries.slice(0, 100))
    out.push({
      id: `off:scifact:${q.id}`,
      dataset: "scifact",
      asked: "synergy",
      split: "fit",
      form: "claim",
      need: q.id,
      text: q.text,
      answers: new Set(),
    });
  const phrasings = JSON.parse(await readFile(join(REPO_ROOT, "bench", "synergyQuestions.json"), "utf8")) as {
    reviews: Array<{ review: string; fit: SynergyPhrasing; heldout: SynergyPhrasing }>;
  };
  const included = await synergyIncluded(config.dataRoot);
  for (const r of phrasings.reviews) {
    for (const split of ["fit", "heldout"] as const) {
      for (const form of ["question", "keywords"] as const) {
        if (split === "fit")
          out.push({
            id: `off:synergy:${r.review}:${form}`,
            dataset: "synergy",
            asked: "scifact",
            split,
            form,
            need: r.review,
            text: r[split][form],
            answers: new Set(),
          });
        out.push({
          id: `synergy:${r.review}:${split}:${form}`,
          dataset: "synergy",
          asked: "synergy",
          split,
          form,
          need: r.review,
          text: r[split][form],
          answers: included.get(r.review) ?? new Set(),
        });
      }
    }
  }
  for (const [i, phrase] of (await rarePhrases(config.dataRoot)).entries())
    out.push({
      id: `phrase:${phrase.phrase}`,
      dataset: "phrase",
      asked: "scifact",
      split: i % 2 === 0 ? "fit" : "heldout",
      form: "keywords",
      need: phrase.phrase,
      text: phrase.phrase,
      answers: phrase.holders,
    });
  return out;
}

/** A phrase in lower case with every run of other characters one space, padded with spaces. */
export const normalizePhrase = (text: string): string =>
  ` ${text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim()} `;

/**
 * Every three-word phrase of SciFact (no stop word, no word starting with a digit, none shorter than 3 letters) that
 * exactly 8 to 12 documents hold in their title or abstract, picked evenly from the sorted list, up to `limit`, with
 * those documents: a request for a rare phrase is answered by the works that hold it.
 */
export async function rarePhrases(
  dataRoot: string,
  limit = RARE_PHRASES,
): Promise<Array<{ phrase: string; holders: Set<string> }>> {
  const corpus = (await readFile(join(dataRoot, "scifact", "corpus.jsonl"), "utf8"))
    .split(/\r?\n/)
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { _id: string | number; title: string; text: string });
  const holders = new Map<string, Set<string>>();
  for (const doc of corpus) {
    const words = normalizePhrase(`${doc.title} ${doc.text}`).trim().split(" ");
    for (let i = 0; i + 2 < words.length; i++) {
      const three = words.slice(i, i + 3);
      if (three.some((w) => ENGLISH_STOP_WORDS.has(w) || /^\d/.test(w) || w.length < 3)) continue;
      const phrase = three.join(" ");
      let set = holders.get(phrase);
      if (!set) holders.set(phrase, (set = new Set()));
      set.add(String(doc._id));
    }
  }
  const rare = [...holders]
    .filter(([, docs]) => docs.size >= 8 && docs.size <= 12)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const step = Math.max(1, Math.floor(rare.length / limit));
  return rare
    .filter((_, i) => i % step === 0)
    .slice(0, limit)
    .map(([phrase, docs]) => ({ phrase, holders: docs }));
}

/** A claim as keywords: its words in order, without stop words and punctuation. */
export function keywordsOf(text: string): string {
  return tokenizeStandard(text)
    .filter((word) => !ENGLISH_STOP_WORDS.has(word.toLowerCase()))
    .join(" ");
}

/** review -> the short OpenAlex ids (W…) of the works it included */
export async function synergyIncluded(dataRoot: string): Promise<Map<string, Set<string>>> {
  const dir = join(dataRoot, "articles", "synergy_labels");
  const out = new Map<string, Set<string>>();
  for (const file of (await readdir(dir)).filter((f) => f.endsWith(".labels.csv")).sort()) {
    const review = file.replace(/\.labels\.csv$/, "");
    const set = new Set<string>();
    for (const line of (await readFile(join(dir, file), "utf8")).split(/\r?\n/).slice(1)) {
      const cells = line.split(",");
      if (cells[cells.length - 1]?.trim() === "1") set.add(cells[0]!.replace("https://openalex.org/", ""));
    }
    out.set(review, set);
  }
  return out;
}

export interface CalibrationIndex {
  config: Config;
  collections: Record<"scifact" | "synergy", Awaited<ReturnType<typeof benchCollection>>>;
  embedder: OnnxEmbedder;
  engine: SearchEngine;
  close(): Promise<void>;
}

/**
 * scifact and openalex-synergy in the bench's embedded index (data/bench/index), ingested as the service ingests
 * them; the shipped demo vectors answer most passages, so a first run takes a few minutes at most.
 */
export async function openCalibrationIndex(): Promise<CalibrationIndex> {
  const config = benchConfig();
  const embedder = await openEmbedder(config);
  const engine = createEmbeddedEngine({ dir: join(config.dataDir, "index") });
  const collections = {
    scifact: (await ingestBenchCollection(config, embedder, engine, "scifact")).collection,
    synergy: (await ingestBenchCollection(config, embedder, engine, "openalex-synergy")).collection,
  };
  return {
    config,
    collections,
    embedder,
    engine,
    async close() {
      await engine.close();
      await embedder.close();
    },
  };
}

/** The first SAMPLE_DEPTH chunks of every query in every mode through the service's retrieval step. */
export async function drawSamples(
  index: CalibrationIndex,
  queries: readonly RelevanceQuery[],
): Promise<RelevanceSample[]> {
  const samples: RelevanceSample[] = [];
  for (const query of queries) {
    const base = index.collections[query.asked];
    for (const mode of MODES) {
      const collection = { ...base, retrieval: mode };
      const merged = await searchCollections(
        { engine: index.engine, embedder: index.embedder },
        [{ key: collection.name, collection }],
        query.text,
        SAMPLE_DEPTH,
      );
      merged.forEach((m, rank) => {
        const docId = String(m.hit.chunk.metadata.doc_id);
        samples.push({
          query: query.id,
          mode,
          rank,
          docId,
          score: m.hit.score,
          best: merged[0]!.hit.score,
          ...(m.hit.dense !== undefined ? { dense: m.hit.dense } : {}),
          relevance: m.calibrated,
          label: query.answers.has(docId) ? 1 : 0,
        });
      });
    }
  }
  return samples;
}
