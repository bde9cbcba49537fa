// Assisted search through the HTTP API on the full SciFact collection: precision and recall of the delivered documents
// against the train qrels (allowClarification false), the share of claims with a relevant verified result, the share of
// off-topic questions answered no_relevant_results, the clarification rate on vague queries, latency and the cost per
// verified result. Prints one JSON line, then a table. The first run embeds the corpus into data/bench (minutes).
// The judge is fitted on these claims (bench/calibrateJudge.ts), so by default each claim is judged by the models of
// its cross-validation fold, fitted without it (bench/judgeFolds.json; the service restarts once per fold); --judge
// shipped judges every claim with the shipped models instead (figures of claims they were fitted on).
// Usage: npm run bench:assisted [-- --claims N] [--judge held-out|shipped] (N: the first N train claims; default all)
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { startRuntime } from '../src/composition.js';
import { listen } from '../src/http/server.js';
import { parseCredits } from '../src/money.js';
import { benchConfig, loadScifactJudgements, openScifactIndex, SCIFACT_COLLECTION } from './scifactBench.js';
import { OFF_TOPIC_QUESTIONS } from './offTopicQuestions.js';
import { claimFolds, loadJudgeFolds } from './judgeFolds.js';
import type { JudgeModels } from '../src/assisted/judge.js';

const { values: args } = parseArgs({ options: { claims: { type: 'string' }, judge: { type: 'string', default: 'held-out' } } });
if (args.judge !== 'held-out' && args.judge !== 'shipped') throw new Error('--judge must be held-out or shipped');

/** Queries too vague to search well: a good assistant asks before it spends the caller's money on them. */
const VAGUE_QUERIES = [
  'treatment',
  'cancer',
  'what about it?',
  'side effects',
  'the best drug',
  'outcomes',
  'is it safe?',
  'latest research',
  'mechanism',
  'risk factors',
  'diagnosis',
  'tell me more',
  'genes',
  'therapy options',
  'what works?',
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

interface Service {
  assisted(body: Record<string, unknown>): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

/** The service on the bench's data directory, with a live key of a fresh organization; `judgeModels`: the judge's, else the shipped ones. */
async function serve(config: ReturnType<typeof benchConfig>, judgeModels?: JudgeModels): Promise<Service> {
  const runtime = await startRuntime(config, { worker: true, log: pino({ level: 'warn' }), judgeModels });
  const server = await listen(runtime.app, 0, '127.0.0.1');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (path: string, body: unknown, auth: string) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${auth}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const close = async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await runtime.close();
  };
  try {
    const org = await post('/admin/v1/organizations', { name: 'assisted bench', limits: { perMinute: 1_000_000, daily: 100_000_000, monthly: 1_000_000_000 } }, config.adminToken);
    await post(`/admin/v1/organizations/${org.body.id}/credits`, { amount: '1000000.00' }, config.adminToken);
    const key = (await post(`/admin/v1/organizations/${org.body.id}/keys`, { mode: 'live' }, config.adminToken)).body.key as string;
    return { assisted: (body) => post('/api/v1/search/assisted', { collection: SCIFACT_COLLECTION, ...body }, key), close };
  } catch (err) {
    await close();
    throw err;
  }
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
  const passes: { judgeModels?: JudgeModels; ofPass: (id: string) => boolean }[] =
    args.judge === 'held-out' ? (await loadJudgeFolds()).folds.map((judgeModels, k) => ({ judgeModels, ofPass: (id) => foldOf(id) === k })) : [{ ofPass: () => true }];
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
  let done = 0;
  for (const [p, pass] of passes.entries()) {
    const service = await serve(config, pass.judgeModels);
    try {
      for (const claim of claims.filter((c) => pass.ofPass(c.id))) {
        const t0 = performance.now();
        const res = await service.assisted({ query: claim.text, allowClarification: false, limit: 10 });
        latencies.push(performance.now() - t0);
        if (++done % 50 === 0) process.stderr.write(`[bench:assisted] ${done}/${claims.length} claims\n`);
        if (res.status !== 200) {
          failures += 1;
          const code = `${res.status} ${res.body?.error?.code ?? ''}`.trim();
          failureCodes[code] = (failureCodes[code] ?? 0) + 1;
          process.stderr.write(`[bench:assisted] claim ${claim.id}: ${code} ${res.body?.error?.message ?? ''}\n`);
          continue;
        }
        const docs = [...new Set((res.body.results as { metadata: { doc_id: string } }[]).map((r) => String(r.metadata.doc_id)))];
        const rel = relevant.get(claim.id) ?? new Set<string>();
        const hits = docs.filter((d) => rel.has(d)).length;
        delivered += docs.length;
        deliveredRelevant += hits;
        relevantTotal += rel.size;
        relevantFound += hits;
        if (hits > 0) withRelevant += 1;
        if (docs.length > 0) answered += 1;
        costMicros += parseCredits(res.headers.get('x-query-cost') ?? '0') ?? 0n;
      }
      for (const q of offTopic.filter((o) => pass.ofPass(o.id))) {
        const res = await service.assisted({ query: q.text, allowClarification: false });
        if (res.status === 200 && res.body.status === 'no_relevant_results') offTopicNo += 1;
      }
      // understanding decides a clarification, not the judge: the vague queries run once
      if (p === passes.length - 1) {
        for (const q of VAGUE_QUERIES) {
          const res = await service.assisted({ query: q, allowClarification: true });
          if (res.status === 200 && res.body.status === 'clarification_needed') asked += 1;
        }
      }
    } finally {
      await service.close();
    }
  }
  const result = {
    bench: 'assisted',
    collection: SCIFACT_COLLECTION,
    claims: claims.length,
    reasoner: config.assisted.llm ? `llm:${config.assisted.llm.model}` : 'builtin',
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
    latencyMs: { p50: Math.round(pct(latencies, 50)), p95: Math.round(pct(latencies, 95)) },
    costPerVerifiedResult: delivered ? round(Number(costMicros) / 1e6 / delivered, 6) : null,
    failures,
    failureCodes,
    loadAverage: round(loadavg()[0]!, 2),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(
    [
      '',
      `| claims | judge | precision | recall | with a relevant result | off-topic no_relevant_results | clarification on vague | p50 | p95 | cost per verified result |`,
      `|---|---|---|---|---|---|---|---|---|---|`,
      `| ${result.claims} | ${result.judge} | ${result.precision} | ${result.recall} | ${result.claimsWithRelevantResult} | ${offTopicNo}/${OFF_TOPIC_QUESTIONS.length} | ${asked}/${VAGUE_QUERIES.length} | ${result.latencyMs.p50} ms | ${result.latencyMs.p95} ms | ${result.costPerVerifiedResult} |`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`bench:assisted failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
