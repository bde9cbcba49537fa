// Whether a second, deeper round of assisted search would sell what it verifies: for each request, the first round's
// pool (the best CANDIDATES_PER_CALL of the plan's sub-questions, as the workflow judges it) and the next pool of the
// same sub-questions (the hits a search twice as deep adds, the best CANDIDATES_PER_CALL of them), each judged as its
// own call by the shipped judge and verdict scale. Prints, per set, the works each round verifies and the share of
// them the labels call topical (a SYNERGY need: screened for its review; included reported beside) or relevant (a
// SciFact claim: judged for it), for the requests where the first round verified fewer than LIMIT works, the only
// ones a deeper round would search. A deeper round ships only if its verified works are topical at the rate the first
// round's are (bench/calibrateVerdicts.ts: STATED_RATE, 0.6) on the held-out phrasings.
// Usage: npx tsx bench/deeperRound.ts [--claims 100]
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../src/app/config.js";
import { loadJournalTable } from "../src/filters/planner.js";
import { planByRules } from "../src/reasoner/builtin/builtinReasoner.js";
import { CatalogueVocabulary } from "../src/reasoner/builtin/constraints.js";
import { judgeCandidates, requestKind } from "../src/reasoner/builtin/judge.js";
import { understandByRules } from "../src/reasoner/builtin/understanding.js";
import type { Candidate } from "../src/reasoner/port.js";
import { CANDIDATES_PER_CALL } from "../workflows/candidateBudget.js";
import { loadLabels } from "./assistedRecall.js";
import { judgePool, type PooledCandidate } from "./judgePool.js";
import { loadScifactJudgements, openJudgeBench, SCIFACT_COLLECTION } from "./scifactBench.js";

const { values: args } = parseArgs({ options: { claims: { type: "string", default: "100" } } });
const SYNERGY = "openalex-synergy";
const LIMIT = 10;
const DBT_QUESTION = "randomized trials of dialectical behaviour therapy for borderline personality disorder";

interface Request {
  set: string;
  collection: string;
  text: string;
  /** topical and included docIds (SYNERGY), or the judged ones for both (SciFact) */
  topical: ReadonlySet<string>;
  included: ReadonlySet<string>;
}

interface Tally {
  requests: number;
  /** the distinct works the pools held that the labels call topical: what a judge could have verified */
  pooledTopical: number;
  pooledIncluded: number;
  verified: number;
  topical: number;
  included: number;
}

interface SetTally {
  /** requests where the first round verified fewer than LIMIT works */
  short: number;
  first: Tally;
  /** the first round over the requests short of LIMIT alone */
  firstShort: Tally;
  deeper: Tally;
  /** the works the deeper round verifies that the first did not */
  added: number;
  addedTopical: number;
}

async function synergyRequests(dataRoot: string): Promise<Request[]> {
  const file = JSON.parse(await readFile(join(REPO_ROOT, "bench", "synergyQuestions.json"), "utf8")) as {
    reviews: Array<{ review: string; fit: Record<string, string>; heldout: Record<string, string> }>;
  };
  const of = async (review: string, set: string, text: string): Promise<Request> => {
    const labels = await loadLabels(dataRoot, review);
    const included = new Set([...labels].filter(([, inc]) => inc).map(([id]) => id));
    return { set, collection: SYNERGY, text, topical: new Set(labels.keys()), included };
  };
  const requests = [await of("Oud_2018", "synergy-heldout", DBT_QUESTION)];
  for (const entry of file.reviews)
    for (const set of ["fit", "heldout"] as const)
      for (const text of Object.values(entry[set])) requests.push(await of(entry.review, `synergy-${set}`, text));
  return requests;
}

const empty = (): Tally => ({ requests: 0, pooledTopical: 0, pooledIncluded: 0, verified: 0, topical: 0, included: 0 });

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const { config, embedder, engine, collections, close } = await openJudgeBench();
  try {
    const { queries, relevant } = await loadScifactJudgements(config.dataRoot);
    const claims: Request[] = queries.slice(0, Number(args.claims)).map((q) => {
      const judged = relevant.get(q.id) ?? new Set<string>();
      return { set: "scifact-claim", collection: SCIFACT_COLLECTION, text: q.text, topical: judged, included: judged };
    });
    const requests = [...(await synergyRequests(config.dataRoot)), ...claims];
    const vocabulary = new CatalogueVocabulary((await loadJournalTable(config.dataDir, config.dataRoot)).journals);
    const chunkVectors = (collection: string) => async (candidates: readonly Candidate[]) => {
      const chunks = await engine.getChunks(
        collection,
        candidates.map((c) => c.id),
      );
      return new Map(chunks.filter((c) => c.vector).map((c) => [c.id, c.vector!] as [string, Float32Array]));
    };
    const tallies = new Map<string, SetTally>();
    for (const request of requests) {
      const understanding = understandByRules(
        { query: request.text, callerFilters: null },
        { vocabulary, now: new Date() },
      );
      const subQuestions = planByRules({ query: request.text, understanding, round: 1, searched: [] });
      const deps = { engine, embedder };
      const collection = collections.get(request.collection)!;
      const first = await judgePool(deps, request.collection, collection, subQuestions, CANDIDATES_PER_CALL);
      const judged = new Set(first.map((p) => p.candidate.id));
      const deeper = (await judgePool(deps, request.collection, collection, subQuestions, 2 * CANDIDATES_PER_CALL))
        .filter((p) => !judged.has(p.candidate.id))
        .slice(0, CANDIDATES_PER_CALL);
      const verifiedWorks = async (pool: PooledCandidate[]) => {
        const verdicts = await judgeCandidates(
          { embedder, chunkVectors: chunkVectors(request.collection) },
          request.text,
          understanding,
          pool.map((p) => p.candidate),
        );
        return new Set(pool.filter((_, i) => verdicts[i]!.verified).map((p) => p.docId));
      };
      const firstWorks = await verifiedWorks(first);
      const kind = requestKind(request.text, understanding);
      const key = `${request.set} (${kind})`;
      const tally = tallies.get(key) ?? {
        short: 0,
        first: empty(),
        firstShort: empty(),
        deeper: empty(),
        added: 0,
        addedTopical: 0,
      };
      tallies.set(key, tally);
      const count = (t: Tally, works: Set<string>, pool: PooledCandidate[]) => {
        t.requests += 1;
        const pooled = new Set(pool.map((p) => p.docId));
        t.pooledTopical += [...pooled].filter((w) => request.topical.has(w)).length;
        t.pooledIncluded += [...pooled].filter((w) => request.included.has(w)).length;
        t.verified += works.size;
        t.topical += [...works].filter((w) => request.topical.has(w)).length;
        t.included += [...works].filter((w) => request.included.has(w)).length;
      };
      count(tally.first, firstWorks, first);
      if (firstWorks.size >= LIMIT || first.length < CANDIDATES_PER_CALL) continue;
      tally.short += 1;
      count(tally.firstShort, firstWorks, first);
      const deeperWorks = await verifiedWorks(deeper);
      count(tally.deeper, deeperWorks, deeper);
      const added = [...deeperWorks].filter((w) => !firstWorks.has(w));
      tally.added += added.length;
      tally.addedTopical += added.filter((w) => request.topical.has(w)).length;
    }
    const rate = (t: Tally) => (t.verified === 0 ? null : Math.round((t.topical / t.verified) * 1000) / 1000);
    const report = {
      claimsSampled: claims.length,
      limit: LIMIT,
      perCall: CANDIDATES_PER_CALL,
      loadAverage: [loadBefore, loadavg()[0]],
      sets: Object.fromEntries(
        [...tallies].map(([set, t]) => [
          set,
          {
            requests: t.first.requests,
            shortOfLimit: t.short,
            first: { ...t.first, topicalRate: rate(t.first) },
            firstOfShort: { ...t.firstShort, topicalRate: rate(t.firstShort) },
            deeper: { ...t.deeper, topicalRate: rate(t.deeper) },
            worksAdded: t.added,
            worksAddedTopical: t.addedTopical,
          },
        ]),
      ),
    };
    console.log(JSON.stringify(report, null, 2));
    for (const [set, t] of tallies)
      console.log(
        `${set}: ${t.first.requests} requests, ${t.short} short of ${LIMIT} works; first round ${t.first.verified} ` +
          `works verified of ${t.first.pooledTopical} topical pooled, ${rate(t.first) ?? "-"} topical ` +
          `(${rate(t.firstShort) ?? "-"} on the short ones); ` +
          `a deeper round would add ${t.added} works ` +
          `(${t.addedTopical} topical), its verified works ${rate(t.deeper) ?? "-"} topical`,
      );
  } finally {
    await close();
  }
}

await main();
