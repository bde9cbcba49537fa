// Fits the judge's delivery rule per query form (src/reasoner/builtin/judgeForms.json) and reports it held out. The
// judge's model was fitted on SciFact claims, which one or two documents support; a review-style question or its
// keywords ask for the literature on a need, and the claims' rule (threshold and relative cut) left most of the works a
// preview ranks first undelivered. Each phrasing of bench/synergyQuestions.json (fit and held out, question and
// keywords forms), the DBT question of the complaint, every SciFact train claim and the off-topic questions of
// offTopicQuestions.ts (on both collections) run through the built-in understanding and planning, the hybrid retrieval
// of the bench's embedded index (openalex-synergy or scifact, the candidate budget split over the sub-questions) and
// the judge's features; the pools are cached in data/bench/judge-forms.json (--refresh collects again).
// Labels on SYNERGY: a work the review included answers the need (positive); a work screened for the review but not
// included is topical, neither counted for nor against included precision, but counted as on topic; a work of another
// review is off topic. Rules are chosen on the fit phrasings only; figures are printed for the held-out phrasings, and
// SciFact train claims are judged by the model of their own cross-validation fold (bench/judgeFolds.json), so every
// SciFact figure is held out too. The rules file is written only when the chosen rule beats the shipped one on the
// held-out phrasings with precision held (or with --write).
// Usage: npx tsx bench/calibrateJudgeForms.ts [--refresh] [--write]
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../src/app/config.js";
import { loadJournals } from "../src/filters/planner.js";
import { CatalogueVocabulary } from "../src/reasoner/builtin/constraints.js";
import { planByRules } from "../src/reasoner/builtin/builtinReasoner.js";
import { understandByRules } from "../src/reasoner/builtin/understanding.js";
import { CANDIDATES_PER_CALL } from "../workflows/candidateBudget.js";
import {
  DEFAULT_JUDGE_MODEL,
  deliveryRule,
  isClaimToCheck,
  judgeForm,
  prepareJudgement,
  probabilityOfOwn,
  ruleFor,
  type FittedJudge,
  type DeliveryRule,
  type FormRules,
  type JudgeForm,
  type JudgeModel,
} from "../src/reasoner/builtin/judge.js";
import { candidateFeatures, FEATURE_NAMES } from "../src/reasoner/builtin/judgeFeatures.js";
import { QUALIFIER_CONFLICT_FACTOR, qualifierConflict } from "../src/reasoner/builtin/qualifiers.js";
import type { Candidate } from "../src/reasoner/port.js";
import { loadLabels } from "./assistedRecall.js";
import { judgePool } from "./judgePool.js";
import { claimFolds, loadJudgeFolds } from "./judgeFolds.js";
import { OFF_TOPIC_QUESTIONS } from "./offTopicQuestions.js";
import { benchConfig, ingestBenchCollection, loadScifactJudgements, SCIFACT_COLLECTION } from "./scifactBench.js";
import { openEmbedder } from "../src/app/composition.js";
import { createEmbeddedEngine } from "../src/retrieval/engines/embedded/embeddedEngine.js";

const { values: args } = parseArgs({
  options: { refresh: { type: "boolean", default: false }, write: { type: "boolean", default: false } },
});

const SYNERGY = "openalex-synergy";
const LIMIT = 10;
const CACHE_VERSION = 1;
const CACHE_PATH = join(REPO_ROOT, "data", "bench", "judge-forms.json");
const OUT_PATH = join(REPO_ROOT, "src", "reasoner", "builtin", "judgeForms.json");
const DBT_QUESTION = "randomized trials of dialectical behaviour therapy for borderline personality disorder";

type Kind = "scifact" | "synergy-fit" | "synergy-heldout" | "off-topic";

interface Item {
  id: string;
  kind: Kind;
  collection: string;
  text: string;
  review?: string;
}

interface Pooled {
  docId: string;
  /** SciFact: 1 relevant, 0 not. SYNERGY: 2 included by the review, 1 screened (topical), 0 another review's work */
  label: 0 | 1 | 2;
  conflict: boolean;
  features: number[];
}

interface Row extends Item {
  /** the judge's form reading and the reading before it (isClaimToCheck) */
  form: JudgeForm;
  claimBefore: boolean;
  relevantCount: number;
  candidates: Pooled[];
}

async function synergyItems(): Promise<Item[]> {
  const file = JSON.parse(await readFile(join(REPO_ROOT, "bench", "synergyQuestions.json"), "utf8")) as {
    reviews: Array<{ review: string; fit: Record<string, string>; heldout: Record<string, string> }>;
  };
  const items: Item[] = [
    { id: "dbt", kind: "synergy-heldout", collection: SYNERGY, text: DBT_QUESTION, review: "Oud_2018" },
  ];
  for (const entry of file.reviews)
    for (const set of ["fit", "heldout"] as const)
      for (const [form, text] of Object.entries(entry[set]))
        items.push({
          id: `${entry.review}-${set}-${form}`,
          kind: `synergy-${set}`,
          collection: SYNERGY,
          text,
          review: entry.review,
        });
  return items;
}

async function collect(): Promise<{ loadAverage: number[]; rows: Row[] }> {
  const loadBefore = loadavg()[0]!;
  const config = benchConfig();
  const embedder = await openEmbedder(config);
  const engine = createEmbeddedEngine({ dir: join(config.dataDir, "index") });
  try {
    const collections = new Map([
      [SCIFACT_COLLECTION, (await ingestBenchCollection(config, embedder, engine, SCIFACT_COLLECTION)).collection],
      [SYNERGY, (await ingestBenchCollection(config, embedder, engine, SYNERGY)).collection],
    ]);
    const { queries, relevant } = await loadScifactJudgements(config.dataRoot);
    const items: Item[] = [
      ...queries.map((q) => ({ id: q.id, kind: "scifact" as const, collection: SCIFACT_COLLECTION, text: q.text })),
      ...(await synergyItems()),
      ...[SCIFACT_COLLECTION, SYNERGY].flatMap((collection) =>
        OFF_TOPIC_QUESTIONS.map((text, i) => ({
          id: `off-${collection}-${i}`,
          kind: "off-topic" as const,
          collection,
          text,
        })),
      ),
    ];
    const vocabulary = new CatalogueVocabulary(await loadJournals(config.dataDir, config.dataRoot));
    const now = new Date();
    const labelCache = new Map<string, Map<string, boolean>>();
    const rows: Row[] = [];
    for (const item of items) {
      const understanding = understandByRules({ query: item.text, callerFilters: null }, { vocabulary, now });
      const subQuestions = planByRules({ query: item.text, understanding, round: 1, searched: [] });
      const pool = await judgePool(
        { engine, embedder },
        item.collection,
        collections.get(item.collection)!,
        subQuestions,
        CANDIDATES_PER_CALL,
      );
      const chunkVectors = async (candidates: readonly Candidate[]) => {
        const chunks = await engine.getChunks(
          item.collection,
          candidates.map((c) => c.id),
        );
        return new Map(chunks.filter((c) => c.vector).map((c) => [c.id, c.vector!] as [string, Float32Array]));
      };
      const prepared = await prepareJudgement(
        { embedder, chunkVectors },
        item.text,
        understanding,
        pool.map((p) => p.candidate),
      );
      const features = candidateFeatures(prepared);
      let labels: Map<string, boolean> | undefined;
      if (item.review) {
        labels = labelCache.get(item.review) ?? (await loadLabels(config.dataRoot, item.review));
        labelCache.set(item.review, labels);
      }
      const judged = relevant.get(item.id);
      rows.push({
        ...item,
        form: judgeForm(item.text, understanding),
        claimBefore: isClaimToCheck(item.text, understanding),
        relevantCount: labels ? [...labels.values()].filter(Boolean).length : (judged?.size ?? 0),
        candidates: pool.map((p, i) => ({
          docId: p.docId,
          label: labels
            ? labels.get(p.docId) === true
              ? 2
              : labels.has(p.docId)
                ? 1
                : 0
            : judged?.has(p.docId)
              ? 1
              : 0,
          conflict: qualifierConflict(item.text, `${p.candidate.title ?? ""}\n${p.candidate.text}`),
          features: features[i]!.map((x) => Math.round(x * 1e6) / 1e6),
        })),
      });
      if (rows.length % 100 === 0) console.error(`[judge-forms] ${rows.length}/${items.length} queries`);
    }
    return { loadAverage: [loadBefore, loadavg()[0]!], rows };
  } finally {
    await engine.close();
    await embedder.close();
  }
}

// ---- evaluation -------------------------------------------------------------------------------------------------

type Model = FittedJudge<string>;

/** The judge's scores of one pool, as the service computes them (rounded, halved on a qualifier conflict). */
function scoresOf(model: Model, row: Row): number[] {
  const columns = model.features.map((name) => (FEATURE_NAMES as readonly string[]).indexOf(name));
  return row.candidates.map((c) => {
    const p =
      Math.round(
        probabilityOfOwn(
          model,
          columns.map((k) => c.features[k]!),
        ) * 1000,
      ) / 1000;
    return c.conflict ? Math.round(p * QUALIFIER_CONFLICT_FACTOR * 1000) / 1000 : p;
  });
}

/** Delivered works: verified candidates best first, one per document, at most LIMIT (workflows/deliverableRows.ts). */
function deliveredOf(row: Row, scores: number[], verified: boolean[]): Pooled[] {
  const order = row.candidates.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
  const seen = new Set<string>();
  const out: Pooled[] = [];
  for (const i of order) {
    if (!verified[i] || seen.has(row.candidates[i]!.docId)) continue;
    seen.add(row.candidates[i]!.docId);
    out.push(row.candidates[i]!);
    if (out.length === LIMIT) break;
  }
  return out;
}

interface Figures {
  queries: number;
  delivered: number;
  perQuery: number;
  /** SYNERGY: share of delivered works on topic (screened for the review); SciFact: share judged relevant */
  topicalPrecision: number;
  /** SYNERGY: share of delivered works the review included */
  includedPrecision: number;
  /** included (SciFact: relevant) works delivered, and their share of those in the pools (at most LIMIT a query) */
  positivesDelivered: number;
  recallOfPool: number;
  /** positives delivered over all the query's positives (SciFact: its judged documents; SYNERGY: the review's) */
  recall: number;
  /** queries with fewer than LIMIT works delivered */
  short: number;
  /** off-topic questions with nothing delivered */
  offTopicRejected?: number;
}

/** The rule a row is judged by: the model's own, or one with these form rules. */
type RuleOf = (row: Row) => { rule: DeliveryRule; claim: boolean };

function figuresOf(rows: Row[], scoresOfRow: (row: Row) => number[], ruleOf: RuleOf): Figures {
  let delivered = 0;
  let topical = 0;
  let included = 0;
  let inPools = 0;
  let positives = 0;
  let short = 0;
  let offTopic = 0;
  let offTopicRejected = 0;
  let queries = 0;
  for (const row of rows) {
    const scores = scoresOfRow(row);
    const { rule, claim } = ruleOf(row);
    const works = deliveredOf(row, scores, deliveryRule(rule, scores, claim));
    if (row.kind === "off-topic") {
      offTopic++;
      if (works.length === 0) offTopicRejected++;
      continue;
    }
    queries++;
    const positive = row.kind === "scifact" ? 1 : 2;
    delivered += works.length;
    topical += works.filter((w) => w.label >= 1).length;
    included += works.filter((w) => w.label === positive).length;
    positives += row.relevantCount;
    inPools += Math.min(LIMIT, new Set(row.candidates.filter((c) => c.label === positive).map((c) => c.docId)).size);
    if (works.length < LIMIT) short++;
  }
  const share = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 1000) / 1000);
  return {
    queries,
    delivered,
    perQuery: share(delivered, queries),
    topicalPrecision: share(topical, delivered),
    includedPrecision: share(included, delivered),
    positivesDelivered: included,
    recallOfPool: share(included, inPools),
    recall: share(included, positives),
    short,
    ...(offTopic > 0 ? { offTopicRejected: share(offTopicRejected, offTopic) } : {}),
  };
}

const FLOORS = Array.from({ length: 32 }, (_, i) => Math.round(i * 5) / 1000);
const RELATIVE_CUTS = [0, 0.1, 0.2, 0.3, 0.5, 0.7];
const RETRIEVAL = (FEATURE_NAMES as readonly string[]).indexOf("retrieval");

/** What a preview shows of the same pool: its ten best works by retrieval score (the relevance scale). */
const previewScores = (row: Row): number[] => row.candidates.map((c) => c.features[RETRIEVAL]!);
const everyRow: RuleOf = () => ({ rule: { threshold: 0, relativeCut: 0 }, claim: false });

/**
 * The rule of one form, chosen on the fit phrasings. The gate stays the model's threshold (a call answers when its
 * best candidate reaches it, as fitted with the off-topic questions on SciFact); the floor and the relative cut are
 * chosen: the most included works delivered while topical precision stays at least 0.95, included precision at least
 * the preview's own on the same phrasings (the free rows the customer sees anyway), and every off-topic question of
 * that form is rejected; ties go to the stricter rule (higher floor, then higher cut).
 */
function chooseFormRule(
  fit: Row[],
  offTopic: Row[],
  scoresOfRow: (row: Row) => number[],
  threshold: number,
): { rule: DeliveryRule; fit: Figures; preview: Figures } {
  const preview = figuresOf(fit, previewScores, everyRow);
  let best: { rule: DeliveryRule; fit: Figures } | null = null;
  for (const floor of FLOORS)
    for (const relativeCut of RELATIVE_CUTS) {
      if (floor > threshold) continue;
      const rule = { threshold, relativeCut, floor };
      const ruleOf: RuleOf = () => ({ rule, claim: true });
      const f = figuresOf(fit, scoresOfRow, ruleOf);
      const off = figuresOf(offTopic, scoresOfRow, ruleOf);
      if (f.includedPrecision < preview.includedPrecision || f.topicalPrecision < 0.95) continue;
      if ((off.offTopicRejected ?? 1) < 1) continue;
      const better =
        !best ||
        f.positivesDelivered > best.fit.positivesDelivered ||
        (f.positivesDelivered === best.fit.positivesDelivered &&
          (floor > best.rule.floor! || (floor === best.rule.floor && relativeCut > best.rule.relativeCut)));
      if (better) best = { rule, fit: f };
    }
  const fallback = { threshold, relativeCut: 0 };
  return {
    ...(best ?? { rule: fallback, fit: figuresOf(fit, scoresOfRow, () => ({ rule: fallback, claim: false })) }),
    preview,
  };
}

interface Cache {
  version: number;
  loadAverage: number[];
  rows: Row[];
}

async function main(): Promise<void> {
  let cache: Cache | null = null;
  if (!args.refresh && existsSync(CACHE_PATH)) {
    const stored = JSON.parse(await readFile(CACHE_PATH, "utf8")) as Cache;
    if (stored.version === CACHE_VERSION) cache = stored;
  }
  if (!cache) {
    cache = { version: CACHE_VERSION, ...(await collect()) };
    await mkdir(dirname(CACHE_PATH), { recursive: true });
    await writeFile(CACHE_PATH, JSON.stringify(cache));
  }
  // the forms are read again (the judge's reading may have changed since the pools were collected); the understanding's
  // part in it, whether it read a claim, is what isClaimToCheck said then
  const rows = cache.rows.map((row) => ({
    ...row,
    form: judgeForm(row.text, { intent: row.claimBefore ? "verify a claim" : "find literature" }),
  }));
  // re-read the forms: the reading may have changed since the pools were collected
  const { folds } = await loadJudgeFolds();
  const config = benchConfig();
  const { relevant } = await loadScifactJudgements(config.dataRoot);
  const foldOf = claimFolds(relevant);
  const shipped = DEFAULT_JUDGE_MODEL;
  // SciFact claims: the model of their own fold and its rule; SYNERGY and off-topic: the shipped model (fitted on
  // SciFact only, so every SYNERGY phrasing is held out from it)
  const foldModels = folds.map((f) => {
    if (f.firstStage.kind !== "logistic") throw new Error("bench/judgeFolds.json holds a judge that is not logistic");
    return f.firstStage as unknown as JudgeModel<string>;
  });
  const modelOf = (row: Row): JudgeModel<string> => (row.kind === "scifact" ? foldModels[foldOf(row.id)]! : shipped);
  const scoreCache = new Map<Row, number[]>();
  const scoresOfRow = (row: Row) => {
    let s = scoreCache.get(row);
    if (!s) scoreCache.set(row, (s = scoresOf(modelOf(row), row)));
    return s;
  };
  // before: the model's rule, its relative cut on what isClaimToCheck reads as a claim
  const before: RuleOf = (row) => ({ rule: modelOf(row), claim: row.claimBefore });
  const withForms =
    (forms: FormRules): RuleOf =>
    (row) =>
      ruleFor({ ...modelOf(row), forms }, row.form);
  const current = withForms(shipped.forms ?? {});

  const of = (kind: Kind, form?: JudgeForm) =>
    rows.filter((r) => r.kind === kind && (form === undefined || r.form === form));
  const offTopicOf = (form: JudgeForm) => rows.filter((r) => r.kind === "off-topic" && r.form === form);

  const scifactForms = of("scifact").reduce<Record<string, number>>((m, r) => {
    const key = `${r.form}${r.claimBefore ? " (claim before)" : " (topic before)"}`;
    m[key] = (m[key] ?? 0) + 1;
    return m;
  }, {});
  console.log(`SciFact train claims by the judge's form reading: ${JSON.stringify(scifactForms)}`);
  console.log(
    `SYNERGY phrasings by form: ${JSON.stringify(
      Object.fromEntries(
        ["question", "keywords", "claim", "topic"].map((f) => [f, rows.filter((r) => r.review && r.form === f).length]),
      ),
    )}`,
  );

  const forms: FormRules = {};
  for (const form of ["question", "keywords"] as const) {
    const fit = of("synergy-fit", form);
    if (fit.length === 0) continue;
    const chosen = chooseFormRule(fit, offTopicOf(form), scoresOfRow, shipped.threshold);
    forms[form] = { floor: chosen.rule.floor!, relativeCut: chosen.rule.relativeCut };
    console.log(
      `${form}: rule on the ${fit.length} fit phrasings: ${JSON.stringify(chosen.rule)}\n  fit ` +
        `${JSON.stringify(chosen.fit)}\n  before ${JSON.stringify(figuresOf(fit, scoresOfRow, before))}\n  ` +
        `preview ${JSON.stringify(chosen.preview)}`,
    );
  }
  const after = withForms(forms);

  const report = (name: string, rule: RuleOf) => {
    const heldout = figuresOf(of("synergy-heldout"), scoresOfRow, rule);
    const scifact = figuresOf(of("scifact"), scoresOfRow, rule);
    const offTopic = figuresOf(of("off-topic"), scoresOfRow, rule);
    return { name, heldout, scifact, offTopicRejected: offTopic.offTopicRejected };
  };
  const table = [
    report("before (claims' rule, cut on isClaimToCheck)", before),
    report("shipped", current),
    report("fitted", after),
  ];
  console.log(
    "\nheld out: SYNERGY held-out phrasings (and the DBT question); SciFact train claims by their fold's model",
  );
  console.log(
    "rule                                          | SYNERGY rows/q  topical  included  " +
      "included works (share of pools)  short | SciFact precision  recall  rows/claim | off-topic rejected",
  );
  for (const t of table)
    console.log(
      `${t.name.padEnd(45)} | ${t.heldout.perQuery.toFixed(2).padEnd(15)} ` +
        `${t.heldout.topicalPrecision.toFixed(3)}    ` +
        `${t.heldout.includedPrecision.toFixed(3)}     ` +
        `${`${t.heldout.positivesDelivered} (${t.heldout.recallOfPool.toFixed(3)})`.padEnd(33)} ` +
        `${String(t.heldout.short).padEnd(5)} | ${t.scifact.includedPrecision.toFixed(4).padEnd(18)} ` +
        `${t.scifact.recall.toFixed(4).padEnd(7)} ${t.scifact.perQuery.toFixed(3).padEnd(10)} | ${t.offTopicRejected}`,
    );
  const previewHeldOut = figuresOf(of("synergy-heldout"), previewScores, everyRow);
  console.log(
    `${"the preview's ten (retrieval order)".padEnd(45)} | ${previewHeldOut.perQuery.toFixed(2).padEnd(15)} ` +
      `${previewHeldOut.topicalPrecision.toFixed(3)}    ${previewHeldOut.includedPrecision.toFixed(3)}     ` +
      `${previewHeldOut.positivesDelivered}`,
  );
  const [, shippedRow, fitted] = table;
  const holds =
    fitted!.heldout.includedPrecision >= shippedRow!.heldout.includedPrecision - 0.02 &&
    fitted!.heldout.topicalPrecision >= shippedRow!.heldout.topicalPrecision - 0.02 &&
    fitted!.scifact.includedPrecision >= shippedRow!.scifact.includedPrecision - 0.002 &&
    (fitted!.offTopicRejected ?? 1) >= (shippedRow!.offTopicRejected ?? 1);
  const beats = fitted!.heldout.positivesDelivered > shippedRow!.heldout.positivesDelivered && holds;
  if (beats || args.write) {
    await writeFile(
      OUT_PATH,
      JSON.stringify(
        {
          $comment:
            "Written by bench/calibrateJudgeForms.ts: the judge's delivery rule for questions and keywords, " +
            "chosen on the SYNERGY fit phrasings (bench/synergyQuestions.json); figures on the held-out phrasings. " +
            "Do not edit by hand.",
          forms,
          heldOut: { before: table[0], fitted, preview: previewHeldOut },
          loadAverage: cache.loadAverage.map((x) => Math.round(x * 100) / 100),
        },
        null,
        2,
      ) + "\n",
    );
    console.log(`\nwrote ${OUT_PATH}${beats ? "" : " (--write: it does not beat the shipped rule held out)"}`);
  } else console.log("\nthe fitted rule does not beat the shipped one held out with precision held: nothing written");
}

await main();
