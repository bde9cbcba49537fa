// The SYNERGY reviews for the quality benchmark: our phrasings of each review's need (bench/synergyQuestions.json, as
// a question and as keywords, fit and held-out), the reviews' labels (articles/synergy_labels in the data root: every
// row a candidate record the review screened, label_included 1 for the works it included) and the figures:
// topical precision@10 (of a default search's 10 rows), included works in those rows, and included recall@30 and
// @100 of the works ranked at their best chunk, per query form.
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { REPO_ROOT } from "../src/app/config.js";
import { mean, recallAt } from "./retrievalMetrics.js";

/** The collection that holds the SYNERGY works (doc_id = the OpenAlex short id, W…). */
export const SYNERGY_COLLECTION = "openalex-synergy";
export const QUERY_FORMS = ["question", "keywords"] as const;
export type QueryForm = (typeof QUERY_FORMS)[number];
export const SPLITS = ["fit", "heldout"] as const;
export type Split = (typeof SPLITS)[number];

export interface SynergyQuery {
  id: string;
  review: string;
  split: Split;
  form: QueryForm;
  text: string;
}

export interface ReviewLabels {
  /** every record the review screened (its candidates), as doc ids */
  candidates: Set<string>;
  /** the records it included */
  included: Set<string>;
}

type Phrasings = Record<QueryForm, string>;

/** Every phrasing of bench/synergyQuestions.json: ten reviews, fit and held-out, each as a question and as keywords. */
export async function loadSynergyQueries(): Promise<SynergyQuery[]> {
  const file = JSON.parse(await readFile(join(REPO_ROOT, "bench", "synergyQuestions.json"), "utf8")) as {
    reviews: Array<{ review: string } & Record<Split, Phrasings>>;
  };
  return file.reviews.flatMap((r) =>
    SPLITS.flatMap((split) =>
      QUERY_FORMS.map((form) => ({
        id: `${r.review}/${split}/${form}`,
        review: r.review,
        split,
        form,
        text: r[split][form],
      })),
    ),
  );
}

const docIdOf = (openAlexId: string): string => openAlexId.trim().replace(/^https?:\/\/openalex\.org\//i, "");

/** Each review's labels file (`<review>.labels.csv`: openalex_id, doi, pmid, label_included). */
export async function loadSynergyLabels(dataRoot: string): Promise<Map<string, ReviewLabels>> {
  const dir = join(dataRoot, "articles", "synergy_labels");
  const labels = new Map<string, ReviewLabels>();
  for (const name of (await readdir(dir)).filter((n) => n.endsWith(".labels.csv")).sort()) {
    const lines = (await readFile(join(dir, name), "utf8")).split(/\r?\n/);
    const header = lines[0]!.split(",");
    const [idAt, includedAt] = [header.indexOf("openalex_id"), header.indexOf("label_included")];
    const review: ReviewLabels = { candidates: new Set(), included: new Set() };
    for (const line of lines.slice(1)) {
      if (!line.trim()) continue;
      const cells = line.split(",");
      const id = docIdOf(cells[idAt]!);
      review.candidates.add(id);
      if (cells[includedAt]!.trim() === "1") review.included.add(id);
    }
    labels.set(name.replace(/\.labels\.csv$/, ""), review);
  }
  return labels;
}

/** One query's answers: a default search's rows (their doc ids, a work may fill two) and the deep work ranking. */
export interface SynergyRanking {
  query: SynergyQuery;
  rows: readonly string[];
  ranking: readonly string[];
}

export interface SynergyFigures {
  queries: number;
  /** share of a default search's 10 rows whose work is among the review's candidate records */
  topicalPrecision10: number;
  /** distinct included works among those 10 rows */
  includedWorksIn10Rows: number;
  /** share of the review's included works (those the collection holds) among the first 30 and 100 works */
  includedRecall30: number;
  includedRecall100: number;
}

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** The figures of some queries' answers. */
export function synergyFigures(
  rankings: readonly SynergyRanking[],
  labels: ReadonlyMap<string, ReviewLabels>,
  held: ReadonlySet<string>,
): SynergyFigures {
  const precision: number[] = [];
  const includedInRows: number[] = [];
  const recall30: number[] = [];
  const recall100: number[] = [];
  for (const { query, rows, ranking } of rankings) {
    const review = labels.get(query.review);
    if (!review) throw new Error(`no labels for review ${query.review}`);
    const top = rows.slice(0, 10);
    precision.push(top.filter((id) => review.candidates.has(id)).length / Math.max(1, top.length));
    includedInRows.push(new Set(top.filter((id) => review.included.has(id))).size);
    const reachable = new Set([...review.included].filter((id) => held.has(id)));
    recall30.push(recallAt(ranking, reachable, 30));
    recall100.push(recallAt(ranking, reachable, 100));
  }
  return {
    queries: rankings.length,
    topicalPrecision10: round4(mean(precision)),
    includedWorksIn10Rows: round4(mean(includedInRows)),
    includedRecall30: round4(mean(recall30)),
    includedRecall100: round4(mean(recall100)),
  };
}

/** Figures per query form (both splits), and per form and split. */
export function synergyTable(
  rankings: readonly SynergyRanking[],
  labels: ReadonlyMap<string, ReviewLabels>,
  held: ReadonlySet<string>,
): Record<string, SynergyFigures> {
  const table: Record<string, SynergyFigures> = {};
  for (const form of QUERY_FORMS) {
    table[form] = synergyFigures(
      rankings.filter((r) => r.query.form === form),
      labels,
      held,
    );
    for (const split of SPLITS)
      table[`${form}/${split}`] = synergyFigures(
        rankings.filter((r) => r.query.form === form && r.query.split === split),
        labels,
        held,
      );
  }
  return table;
}
