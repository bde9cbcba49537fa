// Whether `relevance` reads as a probability: mean relevance against the share of rows whose work answers the
// request, per retrieval mode and per query form, before (the per-mode curves of one engine score fitted on SciFact
// claims alone) and after (src/retrieval/relevanceModel.json), and how far the top row's relevance moves between a
// question and keywords for the same need (SYNERGY held-out phrasings). bench/fitRelevance.ts and bench:quality print it.
import type { RetrievalMode } from "../src/retrieval/port.js";
import { queryForm, RELEVANCE_MODEL, relevanceOf, type RelevanceModel } from "../src/retrieval/relevance.js";
import {
  drawSamples,
  loadRelevanceQueries,
  MODES,
  openCalibrationIndex,
  type RelevanceQuery,
  type RelevanceSample,
} from "./relevanceSamples.js";
import { mean } from "./retrievalMetrics.js";

/** The curves before this model: relevance = logistic(intercept + slope * score), fitted on SciFact claims only. */
export const BEFORE: Readonly<Record<RetrievalMode, { intercept: number; slope: number }>> = {
  sparse: { intercept: -6.18, slope: 13.48 },
  dense: { intercept: -28.05, slope: 34.14 },
  hybrid: { intercept: -22.88, slope: 30.57 },
};

export type Predictor = (sample: RelevanceSample, query: RelevanceQuery) => number;

export const before: Predictor = (s) =>
  1 / (1 + Math.exp(-(BEFORE[s.mode].intercept + BEFORE[s.mode].slope * s.score)));
export const afterWith =
  (model: RelevanceModel): Predictor =>
  (s, q) =>
    relevanceOf(model[s.mode], { score: s.score, best: s.best, form: queryForm(q.text) });

/** The groups reported: where the request comes from, how it is phrased, which split. */
export const GROUPS: Array<{ name: string; keep: (q: RelevanceQuery) => boolean }> = [
  {
    name: "SciFact train, claims",
    keep: (q) => q.dataset === "scifact" && q.asked === "scifact" && q.form === "claim",
  },
  {
    name: "SciFact train, claims as keywords",
    keep: (q) => q.dataset === "scifact" && q.asked === "scifact" && q.form === "keywords",
  },
  { name: "SYNERGY fit, questions", keep: (q) => q.asked === "synergy" && q.split === "fit" && q.form === "question" },
  { name: "SYNERGY fit, keywords", keep: (q) => q.asked === "synergy" && q.split === "fit" && q.form === "keywords" },
  {
    name: "SYNERGY held-out, questions",
    keep: (q) => q.dataset === "synergy" && q.split === "heldout" && q.form === "question",
  },
  {
    name: "SYNERGY held-out, keywords",
    keep: (q) => q.dataset === "synergy" && q.split === "heldout" && q.form === "keywords",
  },
  { name: "asked of the wrong collection", keep: (q) => q.dataset !== q.asked },
];

export interface GroupCalibration {
  group: string;
  mode: RetrievalMode;
  rows: number;
  observed: number;
  before: { mean: number; ece: number; top1: number };
  after: { mean: number; ece: number; top1: number };
  /** the first row of each request: the share that answers it */
  top1Observed: number;
}

export interface FormGap {
  mode: RetrievalMode;
  /** mean top-row relevance of the ten held-out questions and of their keyword forms, and the mean of |q - k| */
  before: { question: number; keywords: number; difference: number; meanAbsolutePairDifference: number };
  after: { question: number; keywords: number; difference: number; meanAbsolutePairDifference: number };
}

export interface Band {
  from: number;
  to: number;
  rows: number;
  meanRelevance: number;
  observed: number;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Expected calibration error over ten equal-width bins: the rows' weighted mean |mean relevance - observed share|. */
export function expectedCalibrationError(points: ReadonlyArray<{ p: number; y: number }>): number {
  return bandsOf(points).reduce((sum, b) => sum + b.rows * Math.abs(b.meanRelevance - b.observed), 0) / points.length;
}

export function bandsOf(
  points: ReadonlyArray<{ p: number; y: number }>,
  edges = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001],
): Band[] {
  return edges.slice(0, -1).map((from, i) => {
    const to = edges[i + 1]!;
    const inBand = points.filter((pt) => pt.p >= from && pt.p < to);
    return {
      from,
      to: Math.min(1, to),
      rows: inBand.length,
      meanRelevance: mean(inBand.map((pt) => pt.p)),
      observed: mean(inBand.map((pt) => pt.y)),
    };
  });
}

export interface CalibrationReport {
  groups: GroupCalibration[];
  formGap: FormGap[];
  /** every SYNERGY held-out and SciFact row of a mode in bands of relevance, after */
  bands: Record<RetrievalMode, { before: Band[]; after: Band[] }>;
}

export function calibrationReport(
  queries: readonly RelevanceQuery[],
  samples: readonly RelevanceSample[],
  model: RelevanceModel = RELEVANCE_MODEL,
): CalibrationReport {
  const after = afterWith(model);
  const byId = new Map(queries.map((q) => [q.id, q]));
  const groups: GroupCalibration[] = [];
  for (const mode of MODES) {
    for (const group of GROUPS) {
      const rows = samples.filter((s) => s.mode === mode && group.keep(byId.get(s.query)!));
      if (rows.length === 0) continue;
      const of = (predict: Predictor) => {
        const points = rows.map((s) => ({ p: predict(s, byId.get(s.query)!), y: s.label }));
        return {
          mean: round3(mean(points.map((pt) => pt.p))),
          ece: round3(expectedCalibrationError(points)),
          top1: round3(mean(rows.filter((s) => s.rank === 0).map((s) => predict(s, byId.get(s.query)!)))),
        };
      };
      groups.push({
        group: group.name,
        mode,
        rows: rows.length,
        observed: round3(mean(rows.map((s) => s.label))),
        before: of(before),
        after: of(after),
        top1Observed: round3(mean(rows.filter((s) => s.rank === 0).map((s) => s.label))),
      });
    }
  }
  const formGap = MODES.map((mode): FormGap => {
    const pairs = queries
      .filter((q) => q.dataset === "synergy" && q.split === "heldout" && q.form === "question")
      .map((q) => {
        const k = byId.get(q.id.replace(/:question$/, ":keywords"))!;
        const top = (r: RelevanceQuery) => samples.find((s) => s.query === r.id && s.mode === mode && s.rank === 0);
        return { q, k, tq: top(q), tk: top(k) };
      })
      .filter((p) => p.tq && p.tk);
    const of = (predict: Predictor) => {
      const qs = pairs.map((p) => predict(p.tq!, p.q));
      const ks = pairs.map((p) => predict(p.tk!, p.k));
      return {
        question: round3(mean(qs)),
        keywords: round3(mean(ks)),
        difference: round3(mean(ks) - mean(qs)),
        meanAbsolutePairDifference: round3(mean(qs.map((x, i) => Math.abs(x - ks[i]!)))),
      };
    };
    return { mode, before: of(before), after: of(after) };
  });
  const bands = Object.fromEntries(
    MODES.map((mode) => {
      const rows = samples.filter((s) => {
        const q = byId.get(s.query)!;
        return s.mode === mode && q.dataset === q.asked && (q.dataset === "scifact" || q.split === "heldout");
      });
      const points = (predict: Predictor) => rows.map((s) => ({ p: predict(s, byId.get(s.query)!), y: s.label }));
      return [mode, { before: bandsOf(points(before)), after: bandsOf(points(after)) }];
    }),
  ) as CalibrationReport["bands"];
  return { groups, formGap, bands };
}

export function printCalibrationReport(report: CalibrationReport): void {
  console.log(
    "\nrelevance calibration: rows = the first 30 chunks of each request, observed = share whose work answers it",
  );
  console.log(
    "mode    group                                rows  observed  before: mean   ECE  top1 | after: mean   ECE  top1 | top1 observed",
  );
  for (const g of report.groups) {
    console.log(
      [
        g.mode.padEnd(7),
        g.group.padEnd(36),
        String(g.rows).padStart(5),
        g.observed.toFixed(3).padStart(9),
        g.before.mean.toFixed(3).padStart(13),
        g.before.ece.toFixed(3).padStart(5),
        g.before.top1.toFixed(3).padStart(5),
        "|",
        g.after.mean.toFixed(3).padStart(11),
        g.after.ece.toFixed(3).padStart(5),
        g.after.top1.toFixed(3).padStart(5),
        "|",
        g.top1Observed.toFixed(3).padStart(13),
      ].join(" "),
    );
  }
  console.log("\ntop row, SYNERGY held-out: question vs keywords for the same need (mean over the ten reviews)");
  console.log("mode     before: question keywords  k-q  mean|q-k|   after: question keywords  k-q  mean|q-k|");
  for (const f of report.formGap) {
    const cells = (x: FormGap["before"]) =>
      `${x.question.toFixed(3).padStart(8)} ${x.keywords.toFixed(3).padStart(8)} ${x.difference.toFixed(3).padStart(6)} ${x.meanAbsolutePairDifference.toFixed(3).padStart(9)}`;
    console.log(`${f.mode.padEnd(8)} ${cells(f.before).padStart(34)}   ${cells(f.after).padStart(32)}`);
  }
  console.log("\nbands of relevance (SciFact train and SYNERGY held-out rows): rows, mean relevance / observed");
  for (const mode of MODES) {
    const line = (bands: Band[]) =>
      bands
        .filter((b) => b.rows > 0)
        .map(
          (b) =>
            `[${b.from.toFixed(1)},${b.to.toFixed(1)}) ${b.rows} ${b.meanRelevance.toFixed(2)}/${b.observed.toFixed(2)}`,
        )
        .join("  ");
    console.log(`${mode} before: ${line(report.bands[mode].before)}`);
    console.log(`${mode} after:  ${line(report.bands[mode].after)}`);
  }
}

/** bench:quality's calibration section: draws the samples on the bench index and prints the report. */
export async function calibrationSection(): Promise<CalibrationReport> {
  const index = await openCalibrationIndex();
  try {
    const queries = await loadRelevanceQueries(index.config);
    const samples = await drawSamples(index, queries);
    const report = calibrationReport(queries, samples);
    printCalibrationReport(report);
    return report;
  } finally {
    await index.close();
  }
}
