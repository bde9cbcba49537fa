// Assisted search over HTTP on the real service (Temporal dev server, event store, embedded engine, embedding model,
// built-in reasoner): each status, validation, filters on every internal search, billing exactness, sandbox, the
// clarification resume, Idempotency-Key, re-fetch, and the route never read as a collection named "assisted".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClient, operatorSteps, startTestService, type TestService } from "../support/testService.js";
import { parseCredits } from "../../src/domain/money.js";

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let ops: ReturnType<typeof operatorSteps>;

/** a claim the SciFact slice holds evidence for (document 120626, obesity and insulin resistance) */
const ANSWERABLE = "How does obesity lead to insulin resistance and type 2 diabetes?";
const OFF_TOPIC = "What is the best recipe for Neapolitan pizza dough?";
const VAGUE = "treatment";

beforeAll(async () => {
  svc = await startTestService();
  call = httpClient(svc.baseUrl);
  ops = operatorSteps(call, svc.adminToken);
}, 600_000);
afterAll(async () => {
  await svc?.close();
});

const liveKey = (credits = "10.00", org: Record<string, unknown> = {}) => ops.customer({ credits, org });

const assisted = (key: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  call("POST", "/api/v1/search/assisted", { key, body, headers });

async function events(
  type: string,
  queryId: string,
): Promise<{ amountMicros: string; tokens: number; endpoint: string }[]> {
  const rows = await svc.runtime.db.query<{ data: { amountMicros: string; tokens: number; endpoint: string } }>(
    `SELECT data FROM events WHERE type = $1 AND data->>'queryId' = $2`,
    [type, queryId],
  );
  return rows.map((r) => r.data);
}

describe("assisted search", () => {
  it("answers results with verified rows, charges exactly their tokens once, and the re-fetch is free", async () => {
    const { orgId, key } = await liveKey();
    const before = parseCredits(await ops.balanceOf(orgId))!;
    const res = await assisted(key, { collection: "scifact", query: ANSWERABLE, allowClarification: false, limit: 5 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe("results");
    expect(res.body.results.length).toBeGreaterThan(0);
    expect(res.body.results.length).toBeLessThanOrEqual(5);
    expect(res.body.iterationsRun).toBeGreaterThanOrEqual(1);
    for (const row of res.body.results) {
      expect(Object.keys(row).sort()).toEqual([
        "collection",
        "cost",
        "doiUrl",
        "id",
        "metadata",
        "relevance",
        "section",
        "subQuestion",
        "text",
        "tokens",
      ]);
      expect(row.collection).toBe("scifact");
      expect(row.relevance.judgeScore).toBeGreaterThan(0);
      expect(row.relevance.judgeScore).toBeLessThanOrEqual(1);
      expect(typeof row.relevance.rationale).toBe("string");
      expect(row.relevance.rationale.length).toBeGreaterThan(0);
      expect(Array.isArray(row.relevance.matchedTerms)).toBe(true);
      // integrity from the update lists in force, as on every row: SciFact rows carry no DOI, so no list could name
      // them, and the row says so rather than reading as clear
      expect(row.metadata.integrity).toEqual({ status: "none", notices: [], listsChecked: false });
    }
    // one row per document, listed by the judgeScore each carries
    expect(new Set(res.body.results.map((r: any) => r.metadata.doc_id)).size).toBe(res.body.results.length);
    const scores = res.body.results.map((r: any) => r.relevance.judgeScore);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(Object.keys(res.body.queryUnderstanding).sort()).toEqual([
      "aspects",
      "caseSummary",
      "entities",
      "filters",
      "intent",
      "subQuestions",
    ]);
    expect(res.body.clarification).toBeUndefined();
    // what it weighed and sold: every row a verified work, the judge's pool at least as large
    const { candidatesJudged, worksVerified, delivered, note } = res.body.screening;
    expect(delivered).toBe(res.body.results.length);
    expect(worksVerified).toBeGreaterThanOrEqual(delivered);
    expect(candidatesJudged).toBeGreaterThanOrEqual(worksVerified);
    expect(note).toContain(`verified ${worksVerified} work`);

    const [charge, ...more] = await events("SearchCharged", res.body.queryId);
    expect(more).toEqual([]);
    expect(charge!.endpoint).toBe("/search/assisted");
    const after = parseCredits(await ops.balanceOf(orgId))!;
    expect(before - after).toBe(BigInt(charge!.amountMicros));
    expect(parseCredits(res.headers.get("x-query-cost")!)).toBe(before - after);
    expect(Number(res.headers.get("x-tokens-used"))).toBe(charge!.tokens);
    expect(res.body.billing).toEqual({ chargedResults: res.body.results.length, tokensCharged: charge!.tokens });
    expect(res.headers.get("x-billing-mode")).toBe("live");
    // each row says what it is charged for, as the re-fetch does: its tokens sum to the charge's, and its own cost is
    // within half a micro-credit of its tokens at the collection's price (one collection: the charge rounds once)
    expect(res.body.results.reduce((sum: number, r: any) => sum + r.tokens, 0)).toBe(charge!.tokens);
    const rowCosts = res.body.results.reduce((sum: bigint, r: any) => sum + parseCredits(r.cost)!, 0n);
    const rounding = BigInt(res.body.results.length);
    expect(rowCosts - BigInt(charge!.amountMicros) <= rounding).toBe(true);
    expect(BigInt(charge!.amountMicros) - rowCosts <= rounding).toBe(true);

    const again = await call("GET", `/api/v1/search/results/${res.body.queryId}`, { key });
    expect(again.status).toBe(200);
    expect(again.body.results.map((r: any) => r.id)).toEqual(res.body.results.map((r: any) => r.id));
    expect(again.body.results.every((r: any) => r.locked === false)).toBe(true);
    // the re-fetch keeps the answer: its status, rounds, understanding, and each row's verdict and sub-question
    expect(again.body.status).toBe("results");
    expect([again.body.iterationsRun, again.body.queryUnderstanding, again.body.screening]).toEqual([
      res.body.iterationsRun,
      res.body.queryUnderstanding,
      res.body.screening,
    ]);
    expect(again.body.results.map((r: any) => [r.relevance, r.subQuestion, r.tokens, r.cost])).toEqual(
      res.body.results.map((r: any) => [r.relevance, r.subQuestion, r.tokens, r.cost]),
    );
    expect(parseCredits(await ops.balanceOf(orgId))).toBe(after);
  }, 120_000);

  it("answers an off-topic question with no_relevant_results, no rows and nothing charged", async () => {
    const { orgId, key } = await liveKey();
    const before = await ops.balanceOf(orgId);
    const res = await assisted(key, { collection: "scifact", query: OFF_TOPIC, allowClarification: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe("no_relevant_results");
    expect(res.body.results).toEqual([]);
    expect(res.body.billing).toEqual({ chargedResults: 0, tokensCharged: 0 });
    expect(res.headers.get("x-query-cost")).toBe("0.000000");
    expect(await ops.balanceOf(orgId)).toBe(before);
    // it says what it weighed, and where to screen what it did not verify
    expect(res.body.screening).toMatchObject({ worksVerified: 0, delivered: 0 });
    expect(res.body.screening.note).toContain("POST /api/v1/search/preview");
    // on a trial organization it uses no trial query either (a no-results answer costs nothing)
    const trial = await ops.newOrg({ billingMode: "trial" });
    const { key: trialKey } = await ops.newKey(trial.id);
    const t = await assisted(trialKey, { collection: "scifact", query: OFF_TOPIC, allowClarification: false });
    expect([t.status, t.body.status, t.headers.get("x-billing-mode")]).toEqual([200, "no_relevant_results", "trial"]);
    const view = await call("GET", `/admin/v1/organizations/${trial.id}`, { admin: svc.adminToken });
    expect(view.body.trialUsed).toBe(0);
  }, 120_000);

  it("verifies nothing for a question whose two subjects no document names together, and charges nothing", async () => {
    // the slice holds an HIV treatment study and studies of type 2 diabetes, a blood-pressure trial and a tuberculosis
    // trial, none naming both subjects: before the verdict asked a row for both, each question verified and charged
    // one of them (the diabetes review for antiretroviral therapy, the blood-pressure trial for tuberculosis)
    const { orgId, key } = await liveKey();
    const before = await ops.balanceOf(orgId);
    for (const query of [
      "Does antiretroviral therapy reduce the risk of type 2 diabetes?",
      "Does lowering blood pressure reduce the risk of tuberculosis?",
    ]) {
      const res = await assisted(key, { collection: "scifact", query, allowClarification: false });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect([res.body.status, res.body.results, res.body.billing], query).toEqual([
        "no_relevant_results",
        [],
        { chargedResults: 0, tokensCharged: 0 },
      ]);
    }
    expect(await ops.balanceOf(orgId)).toBe(before);
    // a question whose subjects a document names together still answers with it
    const held = await assisted(key, {
      collection: "scifact",
      query: "Is obesity associated with insulin resistance?",
      allowClarification: false,
    });
    expect(held.body.status, JSON.stringify(held.body)).toBe("results");
    expect(held.body.results[0].metadata.doc_id).toBe("120626");
  }, 120_000);

  it("asks about a vague query, charges nothing, and the same run resumes with the answer", async () => {
    const { orgId, key } = await liveKey();
    const before = await ops.balanceOf(orgId);
    const asked = await assisted(key, { collection: "scifact", query: VAGUE });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body.status).toBe("clarification_needed");
    expect(asked.body.clarification.question.length).toBeGreaterThan(0);
    expect(typeof asked.body.clarification.reason).toBe("string");
    expect(asked.body.results).toEqual([]);
    expect(asked.body.billing).toEqual({ chargedResults: 0, tokensCharged: 0 });
    expect(await ops.balanceOf(orgId)).toBe(before);

    // another key of the same organization cannot answer it
    const other = await ops.newKey(orgId);
    const stranger = await call("POST", "/api/v1/search/assisted", {
      key: other.key,
      body: { queryId: asked.body.queryId, answer: "insulin resistance in obesity" },
    });
    expect(stranger.status).toBe(404);

    const resumed = await call("POST", "/api/v1/search/assisted", {
      key,
      body: { queryId: asked.body.queryId, answer: "treatment of insulin resistance and type 2 diabetes in obesity" },
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.queryId).toBe(asked.body.queryId);
    expect(["results", "no_relevant_results"]).toContain(resumed.body.status);
    const charges = await events("SearchCharged", asked.body.queryId);
    expect(charges).toHaveLength(1);
    expect(parseCredits(before)! - parseCredits(await ops.balanceOf(orgId))!).toBe(BigInt(charges[0]!.amountMicros));

    // answered once: a second answer is refused
    const twice = await call("POST", "/api/v1/search/assisted", {
      key,
      body: { queryId: asked.body.queryId, answer: "again" },
    });
    expect(twice.status).toBe(409);
    // a client retrying a lost answer is told where the one it paid for is, free
    expect(twice.body.error.message).toContain(`GET /api/v1/search/results/${asked.body.queryId}`);
    const refetched = await call("GET", `/api/v1/search/results/${asked.body.queryId}`, { key });
    expect([refetched.status, refetched.body.queryId]).toEqual([200, asked.body.queryId]);
  }, 120_000);

  it("asks for a question in another language in English, free, and searches the English answer", async () => {
    const { orgId, key } = await liveKey();
    const before = await ops.balanceOf(orgId);
    const asked = await assisted(key, {
      collection: "scifact",
      query: "Ist Vitamin D bei Kindern mit Asthma wirksam? Welche Studien gibt es dazu?",
    });
    expect([asked.status, asked.body.status, asked.body.clarification?.reason]).toEqual([
      200,
      "clarification_needed",
      "the query reads as German; questions are read in English",
    ]);
    expect(asked.headers.get("x-query-cost")).toBe("0.000000");
    const resumed = await call("POST", "/api/v1/search/assisted", {
      key,
      body: { queryId: asked.body.queryId, answer: ANSWERABLE },
    });
    expect([resumed.status, resumed.body.queryUnderstanding?.subQuestions?.[0]]).toEqual([200, expect.any(String)]);
    expect(resumed.body.status).toBe("results");
    expect(resumed.body.results.length).toBeGreaterThan(0);
    const charges = await events("SearchCharged", asked.body.queryId);
    expect(parseCredits(before)! - parseCredits(await ops.balanceOf(orgId))!).toBe(BigInt(charges[0]!.amountMicros));
  }, 120_000);

  it("lets the answer lead: a vague query answered with a full question delivers what that one does", async () => {
    const { key } = await liveKey();
    const fresh = await assisted(key, {
      collection: "scifact",
      query: ANSWERABLE,
      allowClarification: false,
      limit: 5,
    });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(fresh.body.results.length).toBeGreaterThan(0);
    for (const vague of ["is it safe?", "stem cells"]) {
      const asked = await assisted(key, { collection: "scifact", query: vague, limit: 5 });
      expect([vague, asked.body.status]).toEqual([vague, "clarification_needed"]);
      const resumed = await call("POST", "/api/v1/search/assisted", {
        key,
        body: { queryId: asked.body.queryId, answer: ANSWERABLE },
      });
      expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
      // nothing of the vague query is glued into the plan or the judge's question
      expect(resumed.body.queryUnderstanding.subQuestions).toEqual(fresh.body.queryUnderstanding.subQuestions);
      expect(resumed.body.results.map((r: any) => [r.id, r.relevance.judgeScore])).toEqual(
        fresh.body.results.map((r: any) => [r.id, r.relevance.judgeScore]),
      );
    }
  }, 180_000);

  it("never asks when allowClarification is false", async () => {
    const { key } = await liveKey();
    const res = await assisted(key, { collection: "scifact", query: VAGUE, allowClarification: false });
    expect(res.status).toBe(200);
    expect(["results", "no_relevant_results"]).toContain(res.body.status);
    expect(res.body.clarification).toBeUndefined();
  }, 120_000);

  it('answers a claim whose broadened round splits off "M" of "M. stadtmanae" (unsearchable)', async () => {
    // SciFact train claims 732 and 1000: each failed with 422 INVALID_QUERY on one internal search; the caller's
    // query is searchable, so the call must answer
    const { key } = await liveKey();
    for (const query of [
      "M. stadtmanae induces ASC speck formation in BlaER1 monocytes.",
      "Q. zx induces G - quadruplex blorf in W. qqv.",
    ]) {
      const res = await assisted(key, { collection: "scifact", query, allowClarification: false });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(["results", "no_relevant_results"]).toContain(res.body.status);
    }
  }, 120_000);

  it('validates the body before any work and reads "assisted" as the endpoint, never as a collection', async () => {
    const { orgId, key } = await liveKey();
    const before = await ops.balanceOf(orgId);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ query: ANSWERABLE }, 422, "VALIDATION_ERROR"],
      [{ collection: "scifact", collections: ["scifact"], query: ANSWERABLE }, 422, "VALIDATION_ERROR"],
      [{ collections: ["a", "b", "c", "d", "e", "f"], query: ANSWERABLE }, 422, "VALIDATION_ERROR"],
      [{ collection: "scifact" }, 422, "VALIDATION_ERROR"],
      [{ collection: "scifact", query: "x".repeat(16_001) }, 422, "VALIDATION_ERROR"],
      [{ collection: "scifact", query: ANSWERABLE, limit: 31 }, 422, "VALIDATION_ERROR"],
      [{ collection: "scifact", query: ANSWERABLE, limit: 0 }, 422, "VALIDATION_ERROR"],
      [{ collection: "scifact", query: ANSWERABLE, surprise: true }, 422, "VALIDATION_ERROR"],
      [{ collection: "scifact", query: ANSWERABLE, maxCost: "lots" }, 422, "VALIDATION_ERROR"],
      [{ collection: "scifact", query: ANSWERABLE, filters: { no_such_field: 1 } }, 422, "INVALID_FILTER"],
      [{ collection: "scifact", query: "???" }, 422, "INVALID_QUERY"],
      [{ collection: "nope", query: ANSWERABLE }, 404, "COLLECTION_NOT_FOUND"],
      [{ queryId: "unknown", answer: "x" }, 404, "NOT_FOUND"],
      // hostile ids: a NUL byte is refused like anywhere in a body; the others are unknown, like any other
      [{ queryId: "a\u0000b", answer: "x" }, 422, "VALIDATION_ERROR"],
      [{ queryId: "../../assisted-x", answer: "x" }, 404, "NOT_FOUND"],
      [{ queryId: "x".repeat(200), answer: "x" }, 404, "NOT_FOUND"],
      [{ queryId: "unknown", answer: "" }, 422, "VALIDATION_ERROR"],
    ];
    for (const [body, status, code] of cases) {
      const res = await assisted(key, body);
      expect([res.status, res.body?.error?.code], JSON.stringify(body).slice(0, 200)).toEqual([status, code]);
    }
    // the fixed routes in another case are misspelt routes, never collections (collection names resolve in any case)
    for (const path of ["Assisted", "ASSISTED", "Preview", "Query", "UNLOCK", "Journal-Requests"]) {
      const res = await call("POST", `/api/v1/search/${path}`, { key, body: { query: ANSWERABLE } });
      expect([path, res.status, res.body.error.code]).toEqual([path, 404, "NOT_FOUND"]);
    }
    // a query of 16,000 characters is accepted
    const long = await assisted(key, {
      collection: "scifact",
      query: `${ANSWERABLE} ${"insulin obesity ".repeat(990)}`.slice(0, 16_000),
      allowClarification: false,
      limit: 1,
    });
    expect(long.status, JSON.stringify(long.body).slice(0, 300)).toBe(200);
    const charged = long.body.results.length > 0;
    if (!charged) expect(await ops.balanceOf(orgId)).toBe(before);
  }, 180_000);

  it("applies the caller filters to every internal search: an excluded document never comes through", async () => {
    const { key } = await liveKey();
    const query = "treatment of seizures and epilepsy in children and adults";
    const open = await assisted(key, { collection: "openalex-synergy", query, allowClarification: false, limit: 10 });
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    const journals = open.body.results.map((r: any) => r.metadata.journal).filter(Boolean);
    expect(journals.length).toBeGreaterThan(0);
    const excluded = journals[0] as string;
    const filtered = await assisted(key, {
      collection: "openalex-synergy",
      query,
      allowClarification: false,
      limit: 10,
      filters: { field: "journal", ne: excluded },
    });
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(200);
    expect(filtered.body.results.map((r: any) => r.metadata.journal)).not.toContain(excluded);
    // a filter that leaves nothing: an honest no, whatever the sub-questions search
    const none = await assisted(key, {
      collection: "openalex-synergy",
      query,
      allowClarification: false,
      filters: { publication_date: { gte: "2100-01-01" } },
    });
    expect(none.status).toBe(200);
    expect(none.body.status).toBe("no_relevant_results");
    expect(none.body.results).toEqual([]);
  }, 180_000);

  it("gives sandbox keys deterministic synthetic verified rows at no cost", async () => {
    const org = await ops.newOrg({}, "1.00");
    const { key } = await ops.newKey(org.id, { mode: "test" });
    const a = await assisted(key, { collection: "scifact", query: ANSWERABLE });
    const b = await assisted(key, { collection: "scifact", query: ANSWERABLE });
    expect(a.status).toBe(200);
    expect(a.headers.get("x-billing-mode")).toBe("sandbox");
    expect(a.body.status).toBe("results");
    expect(a.body.results.length).toBeGreaterThan(0);
    expect(a.body.results.every((r: any) => r.metadata.synthetic === true)).toBe(true);
    expect(a.body.results.map((r: any) => r.id)).toEqual(b.body.results.map((r: any) => r.id));
    expect(a.body.billing).toEqual({ chargedResults: 0, tokensCharged: 0 });
    expect([a.body.withheldByMaxCost, a.body.nextRowCost]).toEqual([undefined, undefined]);
    // a cap answers its fields as a live answer does; free, it holds nothing back
    // the caller's filters hold on the synthetic rows
    const reviews = await assisted(key, {
      collection: "scifact",
      query: ANSWERABLE,
      filters: { article_type: "review" },
    });
    expect(reviews.status, JSON.stringify(reviews.body)).toBe(200);
    expect(reviews.body.results.length).toBeGreaterThan(0);
    expect(reviews.body.results.map((r: any) => r.metadata.article_type)).toEqual(
      reviews.body.results.map(() => "review"),
    );
    const capped = await assisted(key, { collection: "scifact", query: ANSWERABLE, maxCost: "0.0001" });
    expect([capped.status, capped.body.withheldByMaxCost, capped.body.nextRowCost]).toEqual([200, 0, null]);
    expect(await ops.balanceOf(org.id)).toBe("1.000000");
    // kept like a live answer: re-fetched free by the same key, replayed by an Idempotency-Key
    const again = await call("GET", `/api/v1/search/results/${a.body.queryId}`, { key });
    expect([again.status, again.body.results.map((r: any) => r.id)]).toEqual([
      200,
      a.body.results.map((r: any) => r.id),
    ]);
    expect([again.body.status, again.body.iterationsRun, again.body.queryUnderstanding]).toEqual([
      a.body.status,
      a.body.iterationsRun,
      a.body.queryUnderstanding,
    ]);
    const c1 = await assisted(key, { collection: "scifact", query: ANSWERABLE }, { "Idempotency-Key": "sandbox-1" });
    const c2 = await assisted(key, { collection: "scifact", query: ANSWERABLE }, { "Idempotency-Key": "sandbox-1" });
    expect([c1.status, c2.status, c2.headers.get("idempotency-status"), c2.body.queryId]).toEqual([
      200,
      200,
      "replayed",
      c1.body.queryId,
    ]);
  }, 60_000);

  it("cuts delivered rows to maxCost, best first, and charges no more than it", async () => {
    const { orgId, key } = await liveKey();
    const full = await assisted(key, {
      collection: "scifact",
      query: ANSWERABLE,
      allowClarification: false,
      limit: 10,
    });
    expect(full.body.results.length).toBeGreaterThan(1);
    const before = parseCredits(await ops.balanceOf(orgId))!;
    const firstCost = parseCredits(full.headers.get("x-query-cost")!)! / BigInt(full.body.results.length);
    const cap = "0.000001";
    const capped = await assisted(key, {
      collection: "scifact",
      query: ANSWERABLE,
      allowClarification: false,
      limit: 10,
      maxCost: cap,
    });
    expect(capped.status).toBe(200);
    expect(parseCredits(capped.headers.get("x-query-cost")!)!).toBeLessThanOrEqual(parseCredits(cap)!);
    expect(before - parseCredits(await ops.balanceOf(orgId))!).toBe(parseCredits(capped.headers.get("x-query-cost")!));
    expect(capped.body.withheldByMaxCost).toBeGreaterThan(0);
    // the first row held back is named with its own price, which did not fit
    expect(parseCredits(capped.body.nextRowCost)!).toBeGreaterThan(parseCredits(cap)!);
    void firstCost;
    // an exempt organization pays nothing, so any maxCost fits: nothing is withheld
    const exempt = await ops.newOrg({ billingMode: "exempt" });
    const exemptKey = (await ops.newKey(exempt.id)).key;
    const free = await assisted(exemptKey, {
      collection: "scifact",
      query: ANSWERABLE,
      allowClarification: false,
      limit: 10,
      maxCost: "0",
    });
    expect([free.status, free.headers.get("x-query-cost"), free.body.withheldByMaxCost, free.body.nextRowCost]).toEqual(
      [200, "0.000000", 0, null],
    );
    expect(free.body.results.length).toBe(full.body.results.length);
  }, 180_000);

  it("refuses an organization that cannot pay before any work (402), charging nothing", async () => {
    const org = await ops.newOrg({});
    const { key } = await ops.newKey(org.id);
    const res = await assisted(key, { collection: "scifact", query: ANSWERABLE, allowClarification: false });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe("INSUFFICIENT_CREDITS");
  }, 60_000);

  it("tells an asynchronous run its balance could not pay for why it ended (402), where it was not found", async () => {
    const { orgId, key } = await liveKey("0.000100");
    const started = await assisted(key, {
      collection: "scifact",
      query: ANSWERABLE,
      allowClarification: false,
      limit: 5,
      async: true,
    });
    expect(started.status).toBe(202);
    const { queryId } = started.body as { queryId: string };
    let ended: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 240 && (ended === undefined || ended.status === 200); i++) {
      ended = await call("GET", `/api/v1/search/results/${queryId}`, { key });
      if (ended.status === 200) await new Promise((r) => setTimeout(r, 500));
    }
    expect([ended!.status, ended!.body.error?.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    expect(ended!.body.error.message).toMatch(/nothing was charged/);
    expect(await ops.balanceOf(orgId)).toBe("0.000100");
    // another key of another organization learns nothing of it
    expect((await call("GET", `/api/v1/search/results/${queryId}`, { key: (await liveKey()).key })).status).toBe(404);
  }, 180_000);

  it("replays an Idempotency-Key: the same answer, charged once", async () => {
    const { orgId, key } = await liveKey();
    const body = { collection: "scifact", query: ANSWERABLE, allowClarification: false, limit: 3 };
    const first = await assisted(key, body, { "Idempotency-Key": "assist-1" });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotency-status")).toBe("created");
    const balance = await ops.balanceOf(orgId);
    const second = await assisted(key, body, { "Idempotency-Key": "assist-1" });
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotency-status")).toBe("replayed");
    expect(second.body.queryId).toBe(first.body.queryId);
    expect(second.body.results.map((r: any) => r.id)).toEqual(first.body.results.map((r: any) => r.id));
    expect(await ops.balanceOf(orgId)).toBe(balance);
    // the replay charged nothing, and its headers say so; its body is the same answer
    expect(parseCredits(first.headers.get("x-query-cost")!)).toBeGreaterThan(0n);
    expect([second.headers.get("x-query-cost"), second.headers.get("x-tokens-used")]).toEqual(["0.000000", "0"]);
    expect(second.body.billing).toEqual(first.body.billing);
    expect(await events("SearchCharged", first.body.queryId)).toHaveLength(1);
    const reused = await assisted(key, { ...body, limit: 4 }, { "Idempotency-Key": "assist-1" });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    // a catalogue answer keeps no claim: the same key and body answer again, free
    const catalogue = { collection: "scifact", query: "Which journals are in this collection?" };
    const k1 = await assisted(key, catalogue, { "Idempotency-Key": "assist-catalogue" });
    const k2 = await assisted(key, catalogue, { "Idempotency-Key": "assist-catalogue" });
    expect([k1.status, k2.status, k2.body.discovery?.intent, k2.headers.get("x-query-cost")]).toEqual([
      200,
      200,
      "journals",
      "0.000000",
    ]);
  }, 120_000);
});
