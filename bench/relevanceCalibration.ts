// Whether `relevance` reads as a probability: mean relevance against the share of rows whose work answers the
// request, per retrieval mode and per query form, before (the per-mode curves of one engine score fitted on SciFact
// claims alone) and after (src/retrieval/relevanceModel.json), and how far the top row's relevance moves between a
// question and keywords for the same need (SYNERGY held-out phrasings). bench/fitRelevance.ts and bench:quality
// print it.
import type { RetrievalMode } from "../src/retrieval/port.js";
import { RELEVANCE_MODEL, relevanceOf, requestTraits, type RelevanceModel } from "../src/retrieval/relevance.js";
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
    relevanceOf(model[s.mode], { score: s.score, best: s.best, request: requestTraits(q.text) });

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
  { name: "asked of the wrong collection", keep: (q) => q.dataset !== q.asked && q.dataset !== "phrase" },
  { name: "rare phrases, fit", keep: (q) => q.dataset === "phrase" && q.split === "fit" },
  { name: "rare phrases, held-out", keep: (q) => q.dataset === "phrase" && q.split === "heldout" },
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
  /**
   * mean top-row relevance of the ten held-out questions and of their keyword forms, the mean of |q - k| need by
   * need, and the mean |q - k| of the same work where both phrasings rank it in their first ten rows
   */
  before: FormGapFigures;
  after: FormGapFigures;
  /** works ranked in the first ten rows of both phrasings of a need (their first chunk in each) */
  sameWorks: number;
}

export interface FormGapFigures {
  question: number;
  keywords: number;
  difference: number;
  meanAbsolutePairDifference: number;
  sameWorkMeanAbsoluteDifference: number;
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
      meanRelevance: round3(mean(inBand.map((pt) => pt.p))),
      observed: round3(mean(inBand.map((pt) => pt.y))),
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
    // the same work under both phrasings: its first chunk in each list's first ten rows
    const firstTen = (r: RelevanceQuery) => {
      const rows = new Map<string, RelevanceSample>();
      for (const s of samples)
        if (s.query === r.id && s.mode === mode && s.rank < 10 && !rows.has(s.docId)) rows.set(s.docId, s);
      return rows;
    };
    const sameWork = pairs.flatMap((p) => {
      const ks = firstTen(p.k);
      return [...firstTen(p.q)].flatMap(([doc, sq]) => (ks.has(doc) ? [{ p, sq, sk: ks.get(doc)! }] : []));
    });
    const of = (predict: Predictor): FormGapFigures => {
      const qs = pairs.map((p) => predict(p.tq!, p.q));
      const ks = pairs.map((p) => predict(p.tk!, p.k));
      return {
        question: round3(mean(qs)),
        keywords: round3(mean(ks)),
        difference: round3(mean(ks) - mean(qs)),
        meanAbsolutePairDifference: round3(mean(qs.map((x, i) => Math.abs(x - ks[i]!)))),
        sameWorkMeanAbsoluteDifference: round3(
          mean(sameWork.map((w) => Math.abs(predict(w.sq, w.p.q) - predict(w.sk, w.p.k)))),
        ),
      };
    };
    return { mode, before: of(before), after: of(after), sameWorks: sameWork.length };
  });
  const bands = Object.fromEntries(
    MODES.map((mode) => {
      const rows = samples.filter((s) => {
        const q = byId.get(s.query)!;
        return (
          s.mode === mode &&
          q.dataset !== "phrase" &&
          q.dataset === q.asked &&
          (q.dataset === "scifact" || q.split === "heldout")
        );
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
    "mode    group                                rows  observed  before: mean   ECE  top1 |" +
      " after: mean   ECE  top1 | top1 observed",
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
  console.log(
    "(k-q: the difference of the averages; mean|q-k|: need by need; same work: one work ranked in both phrasings' " +
      "first ten rows)",
  );
  console.log(
    "mode     before: question keywords  k-q  mean|q-k| same work   after: question keywords  k-q  mean|q-k| " +
      "same work  works",
  );
  for (const f of report.formGap) {
    const cells = (x: FormGapFigures) =>
      [
        x.question.toFixed(3).padStart(8),
        x.keywords.toFixed(3).padStart(8),
        x.difference.toFixed(3).padStart(6),
        x.meanAbsolutePairDifference.toFixed(3).padStart(9),
        x.sameWorkMeanAbsoluteDifference.toFixed(3).padStart(9),
      ].join(" ");
    const works = String(f.sameWorks).padStart(6);
    console.log(`${f.mode.padEnd(8)} ${cells(f.before).padStart(44)}   ${cells(f.after).padStart(42)} ${works}`);
  }
  console.log("\nbands of relevance (SciFact train and SYNERGY held-out rows): rows, mean relevance / observed");
  for (const mode of MODES) {
    const line = (bands: Band[]) =>
      bands
        .filter((b) => b.rows > 0)
        .map(
          (b) =>
            `[${b.from.toFixed(1)},${b.to.toFixed(1)}) ${b.rows} ` +
            `${b.meanRelevance.toFixed(2)}/${b.observed.toFixed(2)}`,
        )
        .join("  ");
    console.log(`${mode} before: ${line(report.bands[mode].before)}`);
    console.log(`${mode} after:  ${line(report.bands[mode].after)}`);
  }
}

/** bench:quality's calibration section: draws the samples on the bench index and prints the report. */
export async function calibrationSection(): Promise<CalibrationReport & { rarePhrases: RarePhraseFigures[] }> {
  const index = await openCalibrationIndex();
  try {
    const queries = await loadRelevanceQueries(index.config);
    const samples = await drawSamples(index, queries);
    const report = calibrationReport(queries, samples);
    printCalibrationReport(report);
    const rarePhrases = rarePhraseFigures(queries, samples);
    printRarePhraseFigures(rarePhrases);
    return { ...report, rarePhrases };
  } finally {
    await index.close();
  }
}

/** The thresholds a rare phrase's exact matches are measured against (docs/api.md's recommendation is one of them). */
export const PHRASE_THRESHOLDS = [0.005, 0.01, 0.02, 0.05];

export interface RarePhraseFigures {
  mode: RetrievalMode;
  phrases: number;
  /** rows among each held-out phrase's first 10 whose work holds the exact phrase */
  exactRows: number;
  min: number;
  p05: number;
  median: number;
  /** share of the exact rows below each threshold, before and after */
  belowBefore: Record<string, number>;
  belowAfter: Record<string, number>;
}

/** The held-out rare phrases' exact matches among their first 10 rows: how many a threshold would hide. */
export function rarePhraseFigures(
  queries: readonly RelevanceQuery[],
  samples: readonly RelevanceSample[],
  model: RelevanceModel = RELEVANCE_MODEL,
): RarePhraseFigures[] {
  const after = afterWith(model);
  const byId = new Map(queries.map((q) => [q.id, q]));
  const heldout = (q: RelevanceQuery) => q.dataset === "phrase" && q.split === "heldout";
  return MODES.map((mode) => {
    const rows = samples
      .filter((s) => s.mode === mode && s.rank < 10 && s.label === 1 && heldout(byId.get(s.query)!))
      .map((s) => ({ before: before(s, byId.get(s.query)!), after: after(s, byId.get(s.query)!) }));
    const sorted = rows.map((r) => r.after).sort((a, b) => a - b);
    const below = (key: "before" | "after") =>
      Object.fromEntries(
        PHRASE_THRESHOLDS.map((t) => [
          String(t),
          round3(rows.filter((r) => r[key] < t).length / Math.max(1, rows.length)),
        ]),
      );
    return {
      mode,
      phrases: queries.filter(heldout).length,
      exactRows: rows.length,
      min: round3(sorted[0] ?? 0),
      p05: round3(sorted[Math.floor(sorted.length * 0.05)] ?? 0),
      median: round3(sorted[Math.floor(sorted.length / 2)] ?? 0),
      belowBefore: below("before"),
      belowAfter: below("after"),
    };
  });
}

export function printRarePhraseFigures(figures: readonly RarePhraseFigures[]): void {
  console.log(
    `\nexact matches of rare phrases (SciFact, ${figures[0]?.phrases ?? 0} held-out phrases held by 8-12 documents, ` +
      "their first 10 rows)",
  );
  console.log(`mode     rows    min    p05  median   share below ${PHRASE_THRESHOLDS.join(" / ")}: before | after`);
  for (const f of figures) {
    const cells = (below: Record<string, number>) =>
      PHRASE_THRESHOLDS.map((t) => below[String(t)]!.toFixed(3)).join(" ");
    console.log(
      `${f.mode.padEnd(7)} ${String(f.exactRows).padStart(5)}  ${f.min.toFixed(3)}  ${f.p05.toFixed(3)}  ` +
        `${f.median.toFixed(3)}   ${cells(f.belowBefore)} | ${cells(f.belowAfter)}`,
    );
  }
}
