// Fits the relevance model (src/retrieval/relevanceModel.json, read by src/retrieval/relevance.ts) and prints its
// calibration before and after. Per retrieval mode, a logistic regression of "the row's work answers the request" on
// the row's engine score, its gap to the best score of its own list and the request's form (question, keywords;
// claim is the base), over the first 30 chunks of every 'fit' request (bench/relevanceSamples.ts says which and why).
// SciFact's requests outnumber SYNERGY's forty-fold; SYNERGY's rows are weighted so that they carry SYNERGY_SHARE of
// the likelihood, so the two ways of asking it adds (questions, keywords) are not drowned by claims.
// Re-run after any change to engine scores (fusion.ts, the engines, chunking) or to the embedding model:
//   npm run bench:relevance [-- --dry-run] [--reuse]   (--dry-run prints the fit without writing the JSON; --reuse
//   fits the rows the last run drew, data/bench/relevance-samples.json)
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../src/app/config.js";
import { HYBRID_ALPHA } from "../src/retrieval/fusion.js";
import type { RetrievalMode } from "../src/retrieval/port.js";
import { queryForm, type RelevanceCoefficients, type RelevanceModel } from "../src/retrieval/relevance.js";
import { bm25QueryTerms } from "../src/text/luceneBm25.js";
import { fitLogistic, type Sample } from "./logisticRegression.js";
import {
  calibrationReport,
  printCalibrationReport,
  printRarePhraseFigures,
  rarePhraseFigures,
} from "./relevanceCalibration.js";
import {
  drawSamples,
  loadRelevanceQueries,
  MODES,
  openCalibrationIndex,
  SAMPLE_DEPTH,
  type RelevanceSample,
} from "./relevanceSamples.js";

const { values: args } = parseArgs({
  options: { "dry-run": { type: "boolean", default: false }, reuse: { type: "boolean", default: false } },
});

/** the share of the likelihood SYNERGY's fit rows carry (the rest: SciFact and the wrong-collection requests) */
const SYNERGY_SHARE = 0.25;
/** the share the rare phrases' fit rows carry */
const PHRASE_SHARE = 0.15;
/** the L2 penalty on standardized weights (bench/logisticRegression.ts) */
const L2 = 1e-3;
const MODEL_FILE = join(REPO_ROOT, "src", "retrieval", "relevanceModel.json");
const SAMPLES_FILE = join(REPO_ROOT, "data", "bench", "relevance-samples.json");

const round = (x: number): number => Math.round(x * 10_000) / 10_000;

async function main(): Promise<void> {
  const index = await openCalibrationIndex();
  try {
    const queries = await loadRelevanceQueries(index.config);
    console.error(`[relevance] ${queries.length} requests x ${MODES.length} modes, ${SAMPLE_DEPTH} rows each...`);
    // --reuse: the rows drawn by the last run (the engines' scores have not changed since), to try a fit quickly
    const samples: RelevanceSample[] = args.reuse
      ? (JSON.parse(await readFile(SAMPLES_FILE, "utf8")) as RelevanceSample[])
      : await drawSamples(index, queries);
    if (!args.reuse) await writeFile(SAMPLES_FILE, JSON.stringify(samples));
    const byId = new Map(queries.map((q) => [q.id, q]));
    const modes = {} as Record<RetrievalMode, RelevanceCoefficients>;
    const counts = {} as Record<RetrievalMode, { rows: number; positives: number }>;
    const strictness = {} as Record<RetrievalMode, number>;
    for (const mode of MODES) {
      const fit = samples.filter((s) => s.mode === mode && byId.get(s.query)!.split === "fit");
      const isSynergy = (s: (typeof fit)[number]) =>
        byId.get(s.query)!.asked === "synergy" && byId.get(s.query)!.dataset === "synergy";
      const isPhrase = (s: (typeof fit)[number]) => byId.get(s.query)!.dataset === "phrase";
      const synergyRows = fit.filter(isSynergy).length;
      const phraseRows = fit.filter(isPhrase).length;
      const otherRows = fit.length - synergyRows - phraseRows;
      const rest = 1 - SYNERGY_SHARE - PHRASE_SHARE;
      const synergyWeight = (SYNERGY_SHARE / rest) * (otherRows / synergyRows);
      const phraseWeight = (PHRASE_SHARE / rest) * (otherRows / phraseRows);
      const rows: Sample[] = fit.map((s) => {
        const form = queryForm(byId.get(s.query)!.text);
        return {
          x: [
            s.score,
            s.score - s.best,
            form === "question" ? 1 : 0,
            form === "keywords" ? 1 : 0,
            Math.log(Math.max(1, bm25QueryTerms(byId.get(s.query)!.text).size)),
            isSynergy(s) ? 1 : 0,
          ],
          y: s.label,
          w: isSynergy(s) ? synergyWeight : isPhrase(s) ? phraseWeight : 1,
        };
      });
      const f = fitLogistic(rows, L2);
      // back to the raw features: z = b0 + sum w_k (x_k - mean_k) / scale_k
      const raw = f.weights.map((w, k) => w / f.scales[k]!);
      const intercept = f.intercept - raw.reduce((sum, w, k) => sum + w * f.means[k]!, 0);
      modes[mode] = {
        intercept: round(intercept),
        score: round(raw[0]!),
        gap: round(raw[1]!),
        question: round(raw[2]!),
        keywords: round(raw[3]!),
        logTerms: round(raw[4]!),
      };
      strictness[mode] = round(raw[5]!);
      counts[mode] = { rows: fit.length, positives: fit.filter((s) => s.label === 1).length };
      if (modes[mode].score + modes[mode].gap <= 0)
        throw new Error(
          `${mode}: relevance would fall with the engine score (score + gap <= 0); the merge needs it to rise`,
        );
    }
    const model: RelevanceModel = modes;
    const file = {
      about:
        "relevance = 1 / (1 + exp(-(intercept + score * s + gap * (s - best) + form offset " +
        "+ logTerms * ln(terms)))), " +
        "s the row's engine score, best the best score of its own list, terms the request's distinct analyzed " +
        "terms; written by `npm run bench:relevance` (bench/fitRelevance.ts)",
      embedding: index.embedder.modelName,
      hybridAlpha: HYBRID_ALPHA,
      fittedOn: {
        rowsPerRequest: SAMPLE_DEPTH,
        synergyShare: SYNERGY_SHARE,
        phraseShare: PHRASE_SHARE,
        requests: queries.filter((q) => q.split === "fit").length,
        rows: counts,
        // the SYNERGY rows' own intercept (fitted, not served): how much stricter "included in the review" is
        synergyLabelOffset: strictness,
      },
      modes,
    };
    console.log(JSON.stringify(file, null, 2));
    if (!args["dry-run"]) {
      await writeFile(MODEL_FILE, `${JSON.stringify(file, null, 2)}\n`);
      console.error(`[relevance] written to ${MODEL_FILE}`);
    }
    printCalibrationReport(calibrationReport(queries, samples, model));
    printRarePhraseFigures(rarePhraseFigures(queries, samples, model));
  } finally {
    await index.close();
  }
}

await main();
