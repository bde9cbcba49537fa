// Assisted search through the HTTP API on the full SciFact collection: precision and recall of the delivered documents
// against the train qrels (allowClarification false), the share of claims with a relevant verified result, the share of
// off-topic questions answered no_relevant_results, the clarification rate on vague queries, latency and the cost per
// verified result. Prints one JSON line, then a table. The first run embeds the corpus into data/bench (minutes).
// The judge is fitted on these claims (bench/calibrateJudge.ts), so by default each claim is judged by the models of
// its cross-validation fold, fitted without it (bench/judgeFolds.json; the service restarts once per fold); --judge
// shipped judges every claim with the shipped models instead (figures of claims they were fitted on).
// It also measures asking and listening: the labelled vague queries (bench/clarificationQueries.ts) through the service
// with allowClarification true, and the labelled specific queries and the train claims through the built-in
// understanding (the step that decides a clarification); the answer leads: pairs of a vague query answered with a
// complete question against a fresh run of that question (documents in common), and each train claim sent again as the
// answer to a vague stem (precision and recall against the fresh runs'); the qualifier pairs of
// bench/qualifierPairs.json ordered right by the shipped judge without and with its reading of qualifiers; delivered
// rows under 20 words. Usage: npm run bench:assisted [-- --claims N] [--answers N] [--judge held-out|shipped] (N: the
// first N train claims; default all; --answers: how many of them are also sent as a clarification answer, default all)
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { serveWithLiveKey } from "./benchService.js";
import { parseCredits } from "../src/domain/money.js";
import { benchConfig, loadScifactJudgements, openScifactIndex, SCIFACT_COLLECTION } from "./scifactBench.js";
import { OFF_TOPIC_QUESTIONS } from "./offTopicQuestions.js";
import { claimFolds, loadJudgeFolds } from "./judgeFolds.js";
import { judgeCandidates, type JudgeModel } from "../src/reasoner/builtin/judge.js";
import { serviceJudgeOf } from "./judgeStages.js";
import { readFile } from "node:fs/promises";
import { openEmbedder } from "../src/app/composition.js";
import { CatalogueVocabulary } from "../src/reasoner/builtin/constraints.js";
import { understandByRules } from "../src/reasoner/builtin/understanding.js";
import type { Candidate } from "../src/reasoner/port.js";
import { loadJournalTable } from "../src/filters/planner.js";
import { DEFAULT_MIN_STANDALONE_WORDS } from "../src/ingest/chunk.js";
import { SPECIFIC_QUERIES, VAGUE_QUERIES } from "./clarificationQueries.js";

const { values: args } = parseArgs({
  options: { claims: { type: "string" }, answers: { type: "string" }, judge: { type: "string", default: "held-out" } },
});
if (args.judge !== "held-out" && args.judge !== "shipped") throw new Error("--judge must be held-out or shipped");

/** The vague stems a train claim answers (one per claim, in turn): none says anything the claim contradicts. */
const VAGUE_STEMS = ["is it true?", "what does the research say?", "tell me more", "does it work?", "is it safe?"];
/** Complete questions on SciFact's subjects, each sent fresh and as the answer to a vague query. */
const COMPLETE_QUESTIONS = SPECIFIC_QUERIES.filter((q) => q.endsWith("?")).slice(0, 20);
/** A chunk under this many words does not stand alone (src/ingest/chunk.ts). */
const SHORT_ROW_WORDS = DEFAULT_MIN_STANDALONE_WORDS;

interface QualifierPair {
  query: string;
  better: { collection: string; docId: string; title: string; text: string };
  worse: { collection: string; docId: string; title: string; text: string };
}

/**
 * Share of the pairs whose better document the shipped judge scores strictly above the worse, without and with
 * qualifiers.
 */
async function qualifierOrdering(
  config: ReturnType<typeof benchConfig>,
): Promise<{ pairs: number; before: number; after: number }> {
  const pairs = JSON.parse(
    await readFile(new URL("./qualifierPairs.json", import.meta.url), "utf8"),
  ) as QualifierPair[];
  const embedder = await openEmbedder(config);
  const vocabulary = new CatalogueVocabulary([]);
  const right = { before: 0, after: 0 };
  try {
    for (const pair of pairs) {
      const understanding = understandByRules(
        { query: pair.query, callerFilters: null },
        { vocabulary, now: new Date() },
      );
      const candidate = (side: QualifierPair["better"], id: string): Candidate => ({
        id,
        collection: side.collection,
        text: side.text,
        section: null,
        title: side.title,
        subQuestion: pair.query,
        retrievalScore: 0.3,
        rank: 0,
      });
      const pool = [candidate(pair.better, "better"), candidate(pair.worse, "worse")];
      for (const key of ["before", "after"] as const) {
        const [better, worse] = await judgeCandidates(
          { embedder, readQualifiers: key === "after" },
          pair.query,
          understanding,
          pool,
        );
        if (better!.judgeScore > worse!.judgeScore) right[key] += 1;
      }
    }
  } finally {
    await embedder.close();
  }
  return { pairs: pairs.length, before: round(right.before / pairs.length), after: round(right.after / pairs.length) };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

interface Service {
  assisted(body: Record<string, unknown>): Promise<{ status: number; headers: Headers; body: any }>;

  close(): Promise<void>;
}

/**
 * The service on the bench's data directory, with a live key of a fresh organization; `judgeModel`: the judge's, else
 * the shipped one.
 */
async function serve(config: ReturnType<typeof benchConfig>, judgeModel?: JudgeModel): Promise<Service> {
  const service = await serveWithLiveKey(config, { organization: "assisted bench", credits: "1000000.00", judgeModel });
  return {
    assisted: (body) =>
      service.post("/api/v1/search/assisted", "queryId" in body ? body : { collection: SCIFACT_COLLECTION, ...body }),
    close: service.close,
  };
}

async function main(): Promise<void> {
  const index = await openScifactIndex();
  await index.close();
  const config = benchConfig();
  const { queries, relevant } = await loadScifactJudgements(config.dataRoot);
  const claims = args.claims ? queries.slice(0, Number(args.claims)) : queries;
  const offTopic = OFF_TOPIC_QUESTIONS.map((text, i) => ({ id: `off-${i}`, text }));
  // held-out: each claim (and off-topic question) judged by the models fitted without its fold; shipped: by the
  // models fitted on every train claim, so its precision and recall are of claims the judge was fitted on
  const foldOf = claimFolds(relevant);
  const passes: { judgeModel?: JudgeModel; ofPass: (id: string) => boolean }[] =
    args.judge === "held-out"
      ? (await loadJudgeFolds()).folds.map((models, k) => ({
          judgeModel: serviceJudgeOf(models),
          ofPass: (id) => foldOf(id) === k,
        }))
      : [{ ofPass: () => true }];
  const latencies: number[] = [];
  let delivered = 0;
  let deliveredRelevant = 0;
  let relevantTotal = 0;
  let relevantFound = 0;
  let withRelevant = 0;
  let answered = 0;
  let costMicros = 0n;
  let failures = 0;
  const failureCodes: Record<string, number> = {};
  let offTopicNo = 0;
  let asked = 0;
  let vagueRefused = 0;
  let done = 0;
  let rowsDelivered = 0;
  let shortRows = 0;
  // each answered claim: the fresh run's and the resumed run's delivered documents
  const answerClaims = new Set(claims.slice(0, args.answers ? Number(args.answers) : claims.length).map((c) => c.id));
  const fresh = { delivered: 0, relevant: 0, total: 0, found: 0 };
  const resumed = { delivered: 0, relevant: 0, total: 0, found: 0, notAsked: 0, failures: 0 };
  const overlap = { pairs: 0, freshDocuments: 0, inCommon: 0, notAsked: 0 };
  const docsOf = (body: any): string[] => [
    ...new Set((body.results as { metadata: { doc_id: string } }[]).map((r) => String(r.metadata.doc_id))),
  ];
  /** A vague query that must be asked, then answered: the resumed run's answer (null when no question was asked). */
  const askThenAnswer = async (service: Service, stem: string, answer: string) => {
    const first = await service.assisted({ query: stem, allowClarification: true, limit: 10 });
    if (first.status !== 200 || first.body.status !== "clarification_needed") return null;
    return service.assisted({ queryId: first.body.queryId, answer });
  };
  for (const [p, pass] of passes.entries()) {
    const service = await serve(config, pass.judgeModel);
    try {
      for (const claim of claims.filter((c) => pass.ofPass(c.id))) {
        const t0 = performance.now();
        const res = await service.assisted({ query: claim.text, allowClarification: false, limit: 10 });
        latencies.push(performance.now() - t0);
        if (++done % 50 === 0) process.stderr.write(`[bench:assisted] ${done}/${claims.length} claims\n`);
        if (res.status !== 200) {
          failures += 1;
          const code = `${res.status} ${res.body?.error?.code ?? ""}`.trim();
          failureCodes[code] = (failureCodes[code] ?? 0) + 1;
          process.stderr.write(`[bench:assisted] claim ${claim.id}: ${code} ${res.body?.error?.message ?? ""}\n`);
          continue;
        }
        const docs = docsOf(res.body);
        const rel = relevant.get(claim.id) ?? new Set<string>();
        const hits = docs.filter((d) => rel.has(d)).length;
        for (const row of res.body.results as { text: string }[]) {
          rowsDelivered += 1;
          if (row.text.split(/\s+/).filter(Boolean).length < SHORT_ROW_WORDS) shortRows += 1;
        }
        if (answerClaims.has(claim.id)) {
          // the same claim as the answer to a vague stem: the answer leads, so it should deliver what the claim does
          const again = await askThenAnswer(service, VAGUE_STEMS[done % VAGUE_STEMS.length]!, claim.text);
          if (!again) resumed.notAsked += 1;
          else if (again.status !== 200) resumed.failures += 1;
          else {
            const resumedDocs = docsOf(again.body);
            const resumedHits = resumedDocs.filter((d) => rel.has(d)).length;
            Object.assign(fresh, {
              delivered: fresh.delivered + docs.length,
              relevant: fresh.relevant + hits,
              total: fresh.total + rel.size,
              found: fresh.found + hits,
            });
            Object.assign(resumed, {
              delivered: resumed.delivered + resumedDocs.length,
              relevant: resumed.relevant + resumedHits,
              total: resumed.total + rel.size,
              found: resumed.found + resumedHits,
            });
          }
        }
        delivered += docs.length;
        deliveredRelevant += hits;
        relevantTotal += rel.size;
        relevantFound += hits;
        if (hits > 0) withRelevant += 1;
        if (docs.length > 0) answered += 1;
        costMicros += parseCredits(res.headers.get("x-query-cost") ?? "0") ?? 0n;
      }
      for (const q of offTopic.filter((o) => pass.ofPass(o.id))) {
        const res = await service.assisted({ query: q.text, allowClarification: false });
        if (res.status === 200 && res.body.status === "no_relevant_results") offTopicNo += 1;
      }
      // understanding decides a clarification, not the judge: the vague queries and the complete questions run once
      if (p === passes.length - 1) {
        for (const q of VAGUE_QUERIES) {
          const res = await service.assisted({ query: q, allowClarification: true });
          if (res.status === 200 && res.body.status === "clarification_needed") asked += 1;
          // "what about it?" is refused before any work (422 INVALID_QUERY, only stop words): neither searched nor
          // charged
          else if (res.status === 422) vagueRefused += 1;
        }
        for (const [i, question] of COMPLETE_QUESTIONS.entries()) {
          const alone = await service.assisted({ query: question, allowClarification: false, limit: 10 });
          const again = await askThenAnswer(service, VAGUE_STEMS[i % VAGUE_STEMS.length]!, question);
          if (!again) overlap.notAsked += 1;
          if (alone.status !== 200 || again?.status !== 200) continue;
          const theirs = new Set(docsOf(again.body));
          const freshDocs = docsOf(alone.body);
          overlap.pairs += 1;
          overlap.freshDocuments += freshDocs.length;
          overlap.inCommon += freshDocs.filter((d) => theirs.has(d)).length;
        }
      }
    } finally {
      await service.close();
    }
  }
  // the specific queries and the train claims through the understanding step itself (no search runs for them)
  const vocabulary = new CatalogueVocabulary((await loadJournalTable(config.dataDir, config.dataRoot)).journals);
  const asks = (q: string) =>
    understandByRules({ query: q, callerFilters: null }, { vocabulary, now: new Date() }).clarification !== null;
  const specificAsked = SPECIFIC_QUERIES.filter(asks).length;
  const claimsAsked = queries.filter((c) => asks(c.text)).length;
  const qualifiers = await qualifierOrdering(config);
  const precisionOf = (x: { delivered: number; relevant: number }) => round(x.delivered ? x.relevant / x.delivered : 0);
  const recallOf = (x: { total: number; found: number }) => round(x.total ? x.found / x.total : 0);
  const result = {
    bench: "assisted",
    collection: SCIFACT_COLLECTION,
    claims: claims.length,
    reasoner: config.assisted.llm ? `llm:${config.assisted.llm.model}` : "builtin",
    judge: args.judge,
    precision: round(delivered ? deliveredRelevant / delivered : 0),
    recall: round(relevantTotal ? relevantFound / relevantTotal : 0),
    claimsWithRelevantResult: round(withRelevant / claims.length),
    claimsAnswered: round(answered / claims.length),
    deliveredPerClaim: round(delivered / claims.length, 2),
    offTopicQuestions: OFF_TOPIC_QUESTIONS.length,
    offTopicNoRelevantResults: round(offTopicNo / OFF_TOPIC_QUESTIONS.length),
    vagueQueries: VAGUE_QUERIES.length,
    clarificationRate: round(asked / VAGUE_QUERIES.length),
    vagueRefusedUnsearchable: vagueRefused,
    specificQueries: SPECIFIC_QUERIES.length,
    specificAskedRate: round(specificAsked / SPECIFIC_QUERIES.length),
    trainClaimsAskedRate: round(claimsAsked / queries.length, 4),
    answerVsFresh: {
      pairs: overlap.pairs,
      notAsked: overlap.notAsked,
      freshDocuments: overlap.freshDocuments,
      overlap: round(overlap.freshDocuments ? overlap.inCommon / overlap.freshDocuments : 1),
    },
    claimsAsAnswers: {
      claims: answerClaims.size,
      notAsked: resumed.notAsked,
      failures: resumed.failures,
      fresh: { precision: precisionOf(fresh), recall: recallOf(fresh) },
      resumed: { precision: precisionOf(resumed), recall: recallOf(resumed) },
    },
    qualifierPairs: qualifiers,
    rowsDelivered,
    rowsUnder20Words: shortRows,
    latencyMs: { p50: Math.round(pct(latencies, 50)), p95: Math.round(pct(latencies, 95)) },
    costPerVerifiedResult: delivered ? round(Number(costMicros) / 1e6 / delivered, 6) : null,
    failures,
    failureCodes,
    loadAverage: round(loadavg()[0]!, 2),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(
    [
      "",
      `| claims | judge | precision | recall | with a relevant result | off-topic no_relevant_results | ` +
        `clarification on vague | p50 | p95 | cost per verified result |`,
      `|---|---|---|---|---|---|---|---|---|---|`,
      `| ${result.claims} | ${result.judge} | ${result.precision} | ${result.recall} | ` +
        `${result.claimsWithRelevantResult} | ${offTopicNo}/${OFF_TOPIC_QUESTIONS.length} | ${asked}/` +
        `${VAGUE_QUERIES.length} | ${result.latencyMs.p50} ms | ${result.latencyMs.p95} ms | ` +
        `${result.costPerVerifiedResult} |`,
      "",
      "| specific asked | train claims asked | answer vs fresh (documents in common) | claims as answers: " +
        "precision / recall (fresh) | qualifier pairs ordered right (before -> after) | rows under " +
        `${SHORT_ROW_WORDS} words delivered |`,
      `|---|---|---|---|---|---|`,
      `| ${specificAsked}/${SPECIFIC_QUERIES.length} | ${claimsAsked}/${queries.length} | ` +
        `${result.answerVsFresh.overlap} over ${overlap.pairs} pairs | ` +
        `${result.claimsAsAnswers.resumed.precision} / ${result.claimsAsAnswers.resumed.recall} (` +
        `${result.claimsAsAnswers.fresh.precision} / ${result.claimsAsAnswers.fresh.recall}) over ` +
        `${answerClaims.size} | ${qualifiers.before} -> ${qualifiers.after} of ${qualifiers.pairs} | ${shortRows}` +
        `/${rowsDelivered} |`,
      "",
    ].join("\n"),
  );
}

main().catch((err) => {
  process.stderr.write(`bench:assisted failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
