// Assisted recall on the OpenAlex SYNERGY works, through the HTTP API: for each of our phrasings of the ten SYNERGY
// reviews' needs (bench/synergyQuestions.json, questions and keywords) and the DBT question customers asked, a free
// preview (limit 10, one row per work) and an assisted search (limit 10). Prints the share of the works the preview
// is confident of (relevance >= CONFIDENT) and of all its top-10 works that the assisted search delivers, and the
// precision of each set against the review's labels: topical (the work was screened for that review) and included
// (the review included it).
// The service starts on data/bench-synergy (the demo collections ingested on the first run, from the shipped vectors).
// Usage: npx tsx bench/assistedRecall.ts [--forms question,keywords] [--sets fit,heldout]; bench:quality prints it too.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig, REPO_ROOT } from "../src/app/config.js";
import { ingestMissingDemoCollections } from "../src/app/demoIngest.js";
import { DEFAULT_JUDGE_MODEL, type JudgeModel } from "../src/reasoner/builtin/judge.js";
import { serveWithLiveKey } from "./benchService.js";

const COLLECTION = "openalex-synergy";
const LIMIT = 10;
/**
 * A preview row at or above this relevance is one the assisted search should deliver: the top band of the relevance
 * model's scale, where the model says a row more likely answers than not (SciFact train rows at 0.5 or more are
 * relevant 85% of the time, mean relevance 0.62; docs/api.md). 0.9 was the bar of the scale before it: no preview row
 * on these questions reaches it now.
 */
export const CONFIDENT = 0.5;
/** the bar the complaint named (0.91 to 0.93 in a preview): counted beside CONFIDENT while any row reaches it */
export const VERY_CONFIDENT = 0.9;
/** the question of the complaint: ten DBT trials asked for, two delivered */
const DBT_QUESTION = {
  review: "Oud_2018",
  form: "question",
  set: "complaint",
  text: "randomized trials of dialectical behaviour therapy for borderline personality disorder",
};

interface Phrasing {
  review: string;
  form: string;
  set: string;
  text: string;
}

export interface AssistedRecallReport {
  questions: number;
  /** works a preview scored >= CONFIDENT, summed over the questions */
  sureInPreview: number;
  sureDelivered: number;
  /** sureDelivered / sureInPreview */
  recallOfSure: number;
  /** the same at VERY_CONFIDENT */
  verySureInPreview: number;
  verySureDelivered: number;
  /** the preview's works (its top 10, one row per work), summed over the questions, and those assisted delivers */
  previewWorks: number;
  previewWorksDelivered: number;
  /** previewWorksDelivered / previewWorks */
  recallOfPreview: number;
  delivered: number;
  /** the preview's own rows, for comparison */
  previewRows: number;
  topicalPrecision: { assisted: number; preview: number };
  includedPrecision: { assisted: number; preview: number };
  /** included precision of the preview's confident works (>= CONFIDENT) and of its works below that */
  includedPrecisionByBand: { confident: number; below: number };
  /** included precision of the preview's works assisted delivers and of those it leaves out */
  includedPrecisionOfPreview: { delivered: number; leftOut: number };
  /** questions where assisted delivered under `limit` rows and missed a work the preview scored >= CONFIDENT */
  shortfalls: number;
  perQuestion: Array<{
    review: string;
    form: string;
    set: string;
    sure: number;
    found: number;
    previewWorks: number;
    previewFound: number;
    delivered: number;
  }>;
}

/** A review's labels by OpenAlex work id: true when the review included the work, false when it only screened it. */
export async function loadLabels(dataRoot: string, review: string): Promise<Map<string, boolean>> {
  const text = await readFile(join(dataRoot, "articles", "synergy_labels", `${review}.labels.csv`), "utf8");
  const labels = new Map<string, boolean>();
  for (const line of text.split(/\r?\n/).slice(1)) {
    const [openalex, , , included] = line.split(",");
    if (openalex) labels.set(openalex.replace(/^https?:\/\/openalex\.org\//, ""), included?.trim() === "1");
  }
  return labels;
}

async function loadPhrasings(forms: string[], sets: string[]): Promise<Phrasing[]> {
  const file = JSON.parse(await readFile(new URL("./synergyQuestions.json", import.meta.url), "utf8")) as {
    reviews: Array<{ review: string } & Record<string, Record<string, string> | string>>;
  };
  const out: Phrasing[] = [DBT_QUESTION];
  for (const entry of file.reviews) {
    for (const set of sets) {
      const phrasings = entry[set];
      if (!phrasings || typeof phrasings === "string") continue;
      for (const form of forms)
        if (phrasings[form]) out.push({ review: entry.review, form, set, text: phrasings[form]! });
    }
  }
  return out;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const docOf = (row: { metadata?: { doc_id?: unknown } }) => String(row.metadata?.doc_id ?? "");

export async function assistedRecall(
  options: {
    forms?: string[];
    sets?: string[];
    judgeModel?: JudgeModel;
    /** the assisted search's limit (default LIMIT, the preview's): a larger one shows if a missed work ranked lower */
    assistedLimit?: number;
    log?: (line: string) => void;
  } = {},
): Promise<AssistedRecallReport> {
  const log = options.log ?? ((line: string) => process.stderr.write(`[assisted-recall] ${line}\n`));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: join(REPO_ROOT, "data", "bench-synergy"),
    ADMIN_TOKEN: process.env.ADMIN_TOKEN ?? "bench-admin-token-0123456789",
  });
  const phrasings = await loadPhrasings(options.forms ?? ["question", "keywords"], options.sets ?? ["heldout"]);
  const service = await serveWithLiveKey(config, {
    organization: "assisted recall bench",
    credits: "100000.00",
    judgeModel: options.judgeModel,
    beforeKey: async (runtime) => {
      log("ingesting the demo collections not yet in data/bench-synergy (first run only)");
      await ingestMissingDemoCollections(runtime);
    },
  });
  const { post } = service;
  try {
    const totals = {
      sure: 0,
      found: 0,
      verySure: 0,
      veryFound: 0,
      previewWorks: 0,
      previewFound: 0,
      delivered: 0,
      previewRows: 0,
      shortfalls: 0,
    };
    const precision = { assistedTopical: 0, assistedIncluded: 0, previewTopical: 0, previewIncluded: 0 };
    const bands = { sureIncluded: 0, belowIncluded: 0, deliveredIncluded: 0, leftOutIncluded: 0 };
    const perQuestion: AssistedRecallReport["perQuestion"] = [];
    for (const p of phrasings) {
      const labels = await loadLabels(config.dataRoot, p.review);
      const preview = await post("/api/v1/search/preview", {
        collection: COLLECTION,
        query: p.text,
        limit: LIMIT,
        one_per_document: true,
      });
      const assisted = await post("/api/v1/search/assisted", {
        collection: COLLECTION,
        query: p.text,
        limit: options.assistedLimit ?? LIMIT,
        allowClarification: false,
      });
      if (preview.status !== 200 || assisted.status !== 200)
        throw new Error(
          `"${p.text}": preview ${preview.status}, assisted ${assisted.status} ${JSON.stringify(assisted.body)}`,
        );
      const previewRows = preview.body.results as Array<{ relevance?: number; metadata?: { doc_id?: unknown } }>;
      const sure = new Set(previewRows.filter((r) => (r.relevance ?? 0) >= CONFIDENT).map(docOf));
      const verySure = new Set(previewRows.filter((r) => (r.relevance ?? 0) >= VERY_CONFIDENT).map(docOf));
      const previewWorks = new Set(previewRows.map(docOf));
      const delivered = [...new Set((assisted.body.results as Array<{ metadata?: { doc_id?: unknown } }>).map(docOf))];
      const found = delivered.filter((d) => sure.has(d)).length;
      const previewFound = delivered.filter((d) => previewWorks.has(d)).length;
      totals.sure += sure.size;
      totals.verySure += verySure.size;
      totals.veryFound += delivered.filter((d) => verySure.has(d)).length;
      totals.found += found;
      totals.previewWorks += previewWorks.size;
      totals.previewFound += previewFound;
      for (const d of previewWorks) {
        if (labels.get(d) !== true) continue;
        bands[sure.has(d) ? "sureIncluded" : "belowIncluded"] += 1;
        bands[delivered.includes(d) ? "deliveredIncluded" : "leftOutIncluded"] += 1;
      }
      totals.delivered += delivered.length;
      totals.previewRows += previewRows.length;
      if (delivered.length < LIMIT && found < sure.size) totals.shortfalls += 1;
      precision.assistedTopical += delivered.filter((d) => labels.has(d)).length;
      precision.assistedIncluded += delivered.filter((d) => labels.get(d) === true).length;
      precision.previewTopical += previewRows.filter((r) => labels.has(docOf(r))).length;
      precision.previewIncluded += previewRows.filter((r) => labels.get(docOf(r)) === true).length;
      perQuestion.push({
        ...p,
        sure: sure.size,
        found,
        previewWorks: previewWorks.size,
        previewFound,
        delivered: delivered.length,
      });
      const missed = [...sure].filter((d) => !delivered.includes(d));
      log(
        `${p.review} ${p.set} ${p.form}: ${found}/${sure.size} confident and ${previewFound}/${previewWorks.size} ` +
          `preview works delivered, ${delivered.length} rows` +
          (missed.length > 0 ? ` (missed ${missed.join(", ")})` : ""),
      );
    }
    const share = (a: number, b: number) => (b === 0 ? 0 : round3(a / b));
    return {
      questions: phrasings.length,
      sureInPreview: totals.sure,
      sureDelivered: totals.found,
      recallOfSure: share(totals.found, totals.sure),
      verySureInPreview: totals.verySure,
      verySureDelivered: totals.veryFound,
      previewWorks: totals.previewWorks,
      previewWorksDelivered: totals.previewFound,
      recallOfPreview: share(totals.previewFound, totals.previewWorks),
      delivered: totals.delivered,
      previewRows: totals.previewRows,
      topicalPrecision: {
        assisted: share(precision.assistedTopical, totals.delivered),
        preview: share(precision.previewTopical, totals.previewRows),
      },
      includedPrecision: {
        assisted: share(precision.assistedIncluded, totals.delivered),
        preview: share(precision.previewIncluded, totals.previewRows),
      },
      includedPrecisionByBand: {
        confident: share(bands.sureIncluded, totals.sure),
        below: share(bands.belowIncluded, totals.previewWorks - totals.sure),
      },
      includedPrecisionOfPreview: {
        delivered: share(bands.deliveredIncluded, totals.previewFound),
        leftOut: share(bands.leftOutIncluded, totals.previewWorks - totals.previewFound),
      },
      shortfalls: totals.shortfalls,
      perQuestion: perQuestion.map((q) => ({ ...q, text: undefined }) as (typeof perQuestion)[number]),
    };
  } finally {
    await service.close();
  }
}

/** The table bench:quality prints under its other tables. */
export function printAssistedRecall(runs: Record<string, AssistedRecallReport>): void {
  const first = Object.values(runs)[0]!;
  console.log(
    `\nassisted recall on ${COLLECTION} (${first.questions} questions, limit ${LIMIT}; precision against the ` +
      `SYNERGY labels, the preview's for comparison)`,
  );
  console.log(
    `run      works >= ${VERY_CONFIDENT}  works >= ${CONFIDENT} delivered  preview works delivered  rows  ` +
      `rows/question  topical  included  preview included: all / >= ${CONFIDENT} / below / delivered / left out`,
  );
  for (const [name, r] of Object.entries(runs)) {
    console.log(
      `${name.padEnd(8)} ${`${r.verySureDelivered} of ${r.verySureInPreview}`.padEnd(12)} ` +
        `${`${r.sureDelivered} of ${r.sureInPreview} (${r.recallOfSure.toFixed(3)})`.padEnd(23)} ` +
        `${`${r.previewWorksDelivered} of ${r.previewWorks} (${r.recallOfPreview.toFixed(3)})`.padEnd(24)} ` +
        `${String(r.delivered).padEnd(5)} ${(r.delivered / r.questions).toFixed(1).padEnd(14)} ` +
        `${r.topicalPrecision.assisted.toFixed(3)}    ${r.includedPrecision.assisted.toFixed(3)}     ` +
        `${r.includedPrecision.preview.toFixed(3)} / ${r.includedPrecisionByBand.confident.toFixed(3)} / ` +
        `${r.includedPrecisionByBand.below.toFixed(3)} / ${r.includedPrecisionOfPreview.delivered.toFixed(3)} / ` +
        `${r.includedPrecisionOfPreview.leftOut.toFixed(3)}`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      forms: { type: "string", default: "question,keywords" },
      sets: { type: "string", default: "heldout" },
      // the judge's gate, to try another than the shipped one (the floor is the verdict scale's)
      threshold: { type: "string" },
      limit: { type: "string" },
    },
  });
  const judgeModel =
    values.threshold !== undefined ? { ...DEFAULT_JUDGE_MODEL, threshold: Number(values.threshold) } : undefined;
  const report = await assistedRecall({
    forms: values.forms!.split(","),
    sets: values.sets!.split(","),
    judgeModel,
    assistedLimit: values.limit ? Number(values.limit) : undefined,
  });
  console.log(JSON.stringify({ assistedRecall: report, load: loadavg()[0] }));
  printAssistedRecall({ [judgeModel ? "variant" : "shipped"]: report });
}
