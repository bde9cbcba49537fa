// Money over HTTP on the real stack: billing modes, sandbox, caps, suspension, prices and headers, cached results,
// preview and its Idempotency-Key, unlock rules, audit events, reconciliation and ledger CSV. The clock is moved, never
// waited on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startMoneyServices,
  operator,
  orgEvents,
  BILLING_HEADERS,
  RATE_LIMIT_HEADERS,
  type MoneyServices,
} from "./moneyService.js";
import { formatCredits, parseCredits } from "../../src/domain/money.js";
import { idempotencyBodyHash } from "../../src/usecases/search/previewIdempotency.js";

let m: MoneyServices;
let call: MoneyServices["call"][number];
let ops: ReturnType<typeof operator>;
let admin: string;
const DAY_MS = 24 * 60 * 60 * 1000;
const q = (key: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  call("POST", "/api/v1/search/query", { key, body, headers });
const preview = (key: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  call("POST", "/api/v1/search/preview", { key, body, headers });
const unlock = (key: string, body: Record<string, unknown>) => call("POST", "/api/v1/search/unlock", { key, body });
const SEARCH = { collection: "scifact", query: "vitamin D and bone fractures", limit: 3 };

beforeAll(async () => {
  m = await startMoneyServices(1, "2026-05-10T12:00:00Z");
  call = m.call[0]!;
  admin = m.admin;
  ops = operator(call, admin);
}, 600_000);

afterAll(async () => {
  await m?.close();
});

describe("billing modes", () => {
  it("live: charges tokens x price, sends the four billing headers, records who, what, when in the event", async () => {
    const org = await ops.org({}, "5.00");
    const { id: keyId, key } = await ops.key(org.id);
    const res = await q(key, SEARCH);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-billing-mode")).toBe("live");
    const tokens = Number(res.headers.get("x-tokens-used"));
    const cost = parseCredits(res.headers.get("x-query-cost")!)!;
    expect(cost).toBe((BigInt(tokens) * 30_000n + 500n) / 1000n);
    expect(parseCredits(res.headers.get("x-credits-remaining")!)).toBe(5_000_000n - cost);
    const [event] = await orgEvents(m.superuser, org.id, "SearchCharged");
    expect(event!.metadata.actor).toEqual({ kind: "key", id: keyId });
    expect(event!.recorded_at.toISOString()).toBe(m.clock.now().toISOString());
    expect(event!.data).toMatchObject({
      orgId: org.id,
      keyId,
      queryId: res.body.queryId,
      endpoint: "/query",
      billingMode: "live",
      tokens,
      amountMicros: cost.toString(),
      resultIds: res.body.results.map((r: { id: string }) => r.id),
      collections: [
        { collection: "scifact", results: 3, tokens, pricePer1000Micros: "30000", amountMicros: cost.toString() },
      ],
    });
  });

  it("exempt: searches cost nothing, are recorded at zero and still count against the quota", async () => {
    const org = await ops.org({ billingMode: "exempt" });
    const { key } = await ops.key(org.id);
    const res = await q(key, SEARCH);
    expect(res.status).toBe(200);
    expect([
      res.headers.get("x-billing-mode"),
      res.headers.get("x-query-cost"),
      res.headers.get("x-credits-remaining"),
    ]).toEqual(["exempt", "0.000000", "0.000000"]);
    expect(Number(res.headers.get("x-tokens-used"))).toBeGreaterThan(0);
    expect((await orgEvents(m.superuser, org.id, "SearchCharged"))[0]!.data).toMatchObject({
      billingMode: "exempt",
      amountMicros: "0",
    });
    expect((await call("GET", "/api/v1/search/quota", { key })).body.dailyUsed).toBe(1);
  });

  it("trial: free searches and unlocks up to the allowance, previews use none; then 402, none recorded", async () => {
    const org = await ops.org({ billingMode: "trial", trialQueries: 2 });
    const { key } = await ops.key(org.id);
    const p1 = await preview(key, SEARCH);
    const p2 = await preview(key, { ...SEARCH, query: "statin therapy and memory" });
    expect([p1.status, p2.status]).toEqual([200, 200]);
    const s1 = await q(key, SEARCH);
    expect([s1.status, s1.headers.get("x-billing-mode"), s1.headers.get("x-query-cost")]).toEqual([
      200,
      "trial",
      "0.000000",
    ]);
    const u1 = await unlock(key, { queryId: p1.body.queryId, resultIds: [p1.body.results[0].id] });
    expect([u1.status, u1.body.costCharged, u1.headers.get("x-billing-mode")]).toEqual([200, "0.000000", "trial"]);
    const view = await call("GET", `/admin/v1/organizations/${org.id}`, { admin });
    expect(view.body).toMatchObject({ billingMode: "trial", trialQueries: 2, trialUsed: 2 });
    const before = (await orgEvents(m.superuser, org.id)).length;
    const s2 = await q(key, SEARCH);
    expect([s2.status, s2.body.error.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    const u2 = await unlock(key, { queryId: p2.body.queryId });
    expect([u2.status, u2.body.error.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    expect((await orgEvents(m.superuser, org.id)).length).toBe(before);
    // re-unlocking what the trial already paid for stays free
    expect((await unlock(key, { queryId: p1.body.queryId, resultIds: [p1.body.results[0].id] })).status).toBe(200);
    // the operator moves the organization to live billing: an event, and searches are charged
    const switched = await call("POST", `/admin/v1/organizations/${org.id}/billing`, {
      admin,
      body: { billingMode: "live" },
    });
    expect(switched.body.billingMode).toBe("live");
    await call("POST", `/admin/v1/organizations/${org.id}/credits`, { admin, body: { amount: "1.00" } });
    const s3 = await q(key, SEARCH);
    expect([s3.status, s3.headers.get("x-billing-mode")]).toEqual([200, "live"]);
    expect(parseCredits(s3.headers.get("x-query-cost")!)).toBeGreaterThan(0n);
    expect((await orgEvents(m.superuser, org.id, "BillingSettingsChanged"))[0]!.metadata.actor.kind).toBe("operator");
  });

  it("sandbox keys: synthetic results at no cost on every search and unlock route; 403 on tool calls", async () => {
    const org = await ops.org({}, "1.00");
    const { key } = await ops.key(org.id, { mode: "test" });
    const a = await q(key, SEARCH);
    const b = await call("POST", "/api/v1/search/scifact", { key, body: { query: SEARCH.query, limit: 3 } });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.results.map((r: { id: string }) => r.id)).toEqual(b.body.results.map((r: { id: string }) => r.id));
    expect(
      a.body.results.every(
        (r: { text: string; metadata: { synthetic: boolean } }) =>
          r.metadata.synthetic && r.text.startsWith("[SYNTHETIC]"),
      ),
    ).toBe(true);
    for (const res of [a, b])
      expect([res.headers.get("x-billing-mode"), res.headers.get("x-query-cost")]).toEqual(["sandbox", "0.000000"]);
    const refetch = await call("GET", `/api/v1/search/results/${a.body.queryId}`, { key });
    expect([refetch.status, refetch.headers.get("x-billing-mode")]).toEqual([200, "sandbox"]);
    expect((await call("GET", "/api/v1/search/collections", { key })).headers.get("x-billing-mode")).toBe("sandbox");
    const quota = await call("GET", "/api/v1/search/quota", { key });
    expect([quota.status, quota.body.dailyUsed]).toEqual([200, 0]);
    // preview and unlock run on synthetic rows, free; tool calls have no sandbox behaviour
    const preview = await call("POST", "/api/v1/search/preview", { key, body: SEARCH });
    expect([preview.status, preview.headers.get("x-query-cost")]).toEqual([200, "0.000000"]);
    const unlock = await call("POST", "/api/v1/search/unlock", { key, body: { queryId: preview.body.queryId } });
    expect([
      unlock.status,
      unlock.headers.get("x-billing-mode"),
      unlock.headers.get("x-query-cost"),
      unlock.body.costCharged,
    ]).toEqual([200, "sandbox", "0.000000", "0.000000"]);
    const tools = await call("POST", "/api/v1/tools/mcp/search", { key, body: {} });
    expect([tools.status, tools.body.error.code]).toEqual([403, "SANDBOX_UNSUPPORTED_ENDPOINT"]);
    expect(await ops.balance(org.id)).toBe("1.000000");
    expect(await orgEvents(m.superuser, org.id, "SearchCharged")).toEqual([]);
    expect(await orgEvents(m.superuser, org.id, "ResultsUnlocked")).toEqual([]);
  });

  it("spending caps: a key past its cap gets 429 API_KEY_BUDGET_EXCEEDED and nothing is charged", async () => {
    const org = await ops.org({}, "5.00");
    const first = await ops.key(org.id);
    const cost = (await q(first.key, SEARCH)).headers.get("x-query-cost")!;
    // a key whose cap covers exactly one such search
    const capped = await ops.key(org.id, { mode: "live", spendingCap: cost });
    expect((await q(capped.key, SEARCH)).status).toBe(200);
    const balance = await ops.balance(org.id);
    const refused = await q(capped.key, SEARCH);
    expect([refused.status, refused.body.error.code]).toEqual([429, "API_KEY_BUDGET_EXCEEDED"]);
    const tiny = await ops.key(org.id, { mode: "live", spendingCap: "0.000001" });
    const over = await q(tiny.key, SEARCH);
    expect([over.status, over.body.error.code]).toEqual([429, "API_KEY_BUDGET_EXCEEDED"]);
    expect(await ops.balance(org.id)).toBe(balance);
    expect((await call("GET", `/admin/v1/keys/${capped.id}`, { admin })).body).toMatchObject({
      spendingCap: cost,
      spent: cost,
    });
    // the other key of the organization is not held by that cap
    expect((await q(first.key, SEARCH)).status).toBe(200);
  });

  it("suspension: 402 BILLING_SUSPENDED on paid calls, nothing charged; free calls work; resume restores", async () => {
    const org = await ops.org({}, "5.00");
    const { key } = await ops.key(org.id);
    const p = await preview(key, SEARCH);
    expect(
      (await call("POST", `/admin/v1/organizations/${org.id}/suspend`, { admin, body: { reason: "card declined" } }))
        .body.suspended,
    ).toBe(true);
    for (const res of [await q(key, SEARCH), await unlock(key, { queryId: p.body.queryId })])
      expect([res.status, res.body.error.code]).toEqual([402, "BILLING_SUSPENDED"]);
    expect((await preview(key, SEARCH)).status).toBe(200);
    expect((await call("GET", `/api/v1/search/results/${p.body.queryId}`, { key })).status).toBe(200);
    expect(await ops.balance(org.id)).toBe("5.000000");
    const [suspended] = await orgEvents(m.superuser, org.id, "BillingSuspended");
    expect(suspended!.data.reason).toBe("card declined");
    await call("POST", `/admin/v1/organizations/${org.id}/resume`, { admin });
    expect((await q(key, SEARCH)).status).toBe(200);
  });
});

describe("prices and billing headers", () => {
  it("charges an org its own collection price; the override is an event, listed, in ranges, removable", async () => {
    const org = await ops.org({}, "5.00");
    const { key } = await ops.key(org.id);
    const set = await call("PUT", `/admin/v1/organizations/${org.id}/prices/scifact`, {
      admin,
      body: { pricePer1000: "0.500" },
    });
    expect(set.status).toBe(200);
    expect(set.body.prices.find((p: { collection: string }) => p.collection === "scifact")).toEqual({
      collection: "scifact",
      pricePer1000: "0.500",
      catalogPricePer1000: "0.030",
      overridden: true,
    });
    const res = await q(key, SEARCH);
    const tokens = BigInt(res.headers.get("x-tokens-used")!);
    expect(parseCredits(res.headers.get("x-query-cost")!)).toBe((tokens * 500_000n + 500n) / 1000n);
    const cols = await call("GET", "/api/v1/search/collections", { key });
    expect(cols.body.collections.find((c: { name: string }) => c.name === "biomedical").priceRange).toMatchObject({
      max: "0.500",
    });
    const pre = await preview(key, SEARCH);
    expect(
      pre.body.results.every(
        (r: { tokens: number; cost: string }) => parseCredits(r.cost) === (BigInt(r.tokens) * 500_000n + 500n) / 1000n,
      ),
    ).toBe(true);
    expect((await orgEvents(m.superuser, org.id, "PriceOverrideSet"))[0]).toMatchObject({
      data: { collection: "scifact", pricePer1000Micros: "500000" },
      metadata: { actor: { kind: "operator" } },
    });
    expect(
      (await call("PUT", `/admin/v1/organizations/${org.id}/prices/biomedical`, { admin, body: { pricePer1000: "1" } }))
        .status,
    ).toBe(422);
    expect((await call("DELETE", `/admin/v1/organizations/${org.id}/prices/scifact`, { admin })).status).toBe(200);
    const back = await q(key, SEARCH);
    expect(parseCredits(back.headers.get("x-query-cost")!)).toBe(
      (BigInt(back.headers.get("x-tokens-used")!) * 30_000n + 500n) / 1000n,
    );
  });

  it("names a meta-collection row's member, whose price it is charged at, so the charge can be checked", async () => {
    const org = await ops.org({}, "5.00");
    const { key } = await ops.key(org.id);
    await call("PUT", `/admin/v1/organizations/${org.id}/prices/scifact`, { admin, body: { pricePer1000: "0.500" } });
    const prices = new Map<string, bigint>(
      (await call("GET", "/api/v1/search/collections", { key })).body.collections
        .filter((c: { pricePer1000?: string }) => c.pricePer1000 !== undefined)
        .map((c: { name: string; pricePer1000: string }) => [c.name, parseCredits(c.pricePer1000)!]),
    );
    const body = { collection: "biomedical", query: "vitamin D deficiency and bone mineral density", limit: 8 };
    const res = await q(key, body);
    expect(res.status).toBe(200);
    const members = res.body.results.map((r: { memberCollection: string }) => r.memberCollection);
    expect(new Set(members).size, JSON.stringify(members)).toBeGreaterThan(1);
    expect(members.every((m: string) => ["openalex-synergy", "scifact", "clinical-digest"].includes(m))).toBe(true);
    expect(res.body.results.every((r: { collection: string }) => r.collection === "biomedical")).toBe(true);
    // the re-fetch gives each row's tokens: their cost at their members' prices, summed and rounded once, is the charge
    const kept = await call("GET", `/api/v1/search/results/${res.body.queryId}`, { key });
    expect(kept.body.results.map((r: { memberCollection: string }) => r.memberCollection)).toEqual(members);
    const numerator = kept.body.results.reduce(
      (sum: bigint, r: { tokens: number; memberCollection: string }) =>
        sum + BigInt(r.tokens) * prices.get(r.memberCollection)!,
      0n,
    );
    expect(parseCredits(res.headers.get("x-query-cost")!)).toBe((numerator + 500n) / 1000n);
    // a collection named directly: its rows need no member
    const plain = await q(key, SEARCH);
    expect(plain.body.results.some((r: object) => "memberCollection" in r)).toBe(false);
  });

  it("omits X-Credits-Remaining when the balance is hidden, and every billing header when billing is off", async () => {
    const hidden = await ops.org({ hideBalance: true }, "5.00");
    const hk = await ops.key(hidden.id);
    const h = await q(hk.key, SEARCH);
    expect(BILLING_HEADERS.map((n) => h.headers.has(n))).toEqual([true, true, true, false]);

    const off = await ops.org({ billingEnabled: false }, "5.00");
    const ok = await ops.key(off.id);
    const s = await q(ok.key, SEARCH);
    const p = await preview(ok.key, SEARCH);
    const u = await unlock(ok.key, { queryId: p.body.queryId });
    const r = await call("GET", `/api/v1/search/results/${s.body.queryId}`, { key: ok.key });
    const c = await call("GET", "/api/v1/search/collections", { key: ok.key });
    for (const res of [s, p, u, r, c]) {
      expect(res.status).toBe(200);
      expect(BILLING_HEADERS.filter((n) => res.headers.has(n))).toEqual([]);
    }
    expect(u.body.costCharged).toBe("0.000000");
    expect(await ops.balance(off.id)).toBe("5.000000");
    expect((await orgEvents(m.superuser, off.id, "SearchCharged"))[0]!.data).toMatchObject({
      billingMode: "off",
      amountMicros: "0",
    });
  });
});

describe("cached results", () => {
  it("re-fetches free with spec fields and headers; 404 for another key; 410 after 7 days (both routes)", async () => {
    const org = await ops.org({}, "5.00");
    const { key } = await ops.key(org.id);
    const other = await ops.key(org.id);
    const s = await q(key, SEARCH);
    const p = await preview(key, SEARCH);
    const created = m.clock.now();
    // the search says until when it re-fetches free, as the re-fetch does (ISO 8601, as the reference's clients parse
    // it)
    expect(s.headers.get("x-cache-expires")).toBe(new Date(created.getTime() + 7 * DAY_MS).toISOString());
    const r = await call("GET", `/api/v1/search/results/${s.body.queryId}`, { key });
    expect(r.status).toBe(200);
    expect([r.headers.get("x-cache"), r.headers.get("x-cache-expires"), r.headers.get("x-query-cost")]).toEqual([
      "hit",
      new Date(created.getTime() + 7 * DAY_MS).toISOString(),
      "0.000000",
    ]);
    expect(RATE_LIMIT_HEADERS.filter((n) => r.headers.has(n))).toEqual([]);
    expect(r.body.latencyMs).toBe(0);
    for (const row of r.body.results)
      expect(row).toMatchObject({
        locked: false,
        tokens: expect.any(Number),
        cost: expect.stringMatching(/^\d+\.\d{6}$/),
        figureCount: 0,
        relevance: expect.any(Number),
      });
    expect(r.body.results.map((x: { text: string }) => x.text)).toEqual(
      s.body.results.map((x: { text: string }) => x.text),
    );
    expect(
      (await call("GET", `/api/v1/search/results/${s.body.queryId}?includeFigures=true&imageMaxWidth=5000`, { key }))
        .status,
    ).toBe(422);
    expect(
      (await call("GET", `/api/v1/search/results/${s.body.queryId}?includeFigures=true&imageMaxWidth=400`, { key }))
        .status,
    ).toBe(200);
    expect((await call("GET", `/api/v1/search/results/${s.body.queryId}`, { key: other.key })).status).toBe(404);
    expect(r.body.results[0].metadata).toMatchObject({ chunk_index: expect.any(Number) });
    // a search that asked for no metadata is re-fetched without it (the reference's PreviewResult.metadata)
    const bare = await q(key, { ...SEARCH, include_metadata: false, collections: null });
    expect(bare.status).toBe(200);
    const bareAgain = await call("GET", `/api/v1/search/results/${bare.body.queryId}`, { key });
    expect(bareAgain.body.results.map((x: { metadata: unknown }) => x.metadata)).toEqual(
      bare.body.results.map(() => null),
    );
    const balance = await ops.balance(org.id);

    m.clock.advance(7 * DAY_MS - 1000);
    expect((await call("GET", `/api/v1/search/results/${p.body.queryId}`, { key })).status).toBe(200);
    m.clock.advance(1000);
    for (const res of [
      await call("GET", `/api/v1/search/results/${s.body.queryId}`, { key }),
      await call("GET", `/api/v1/search/results/${p.body.queryId}`, { key }),
      await unlock(key, { queryId: p.body.queryId }),
    ]) {
      expect([res.status, res.body.error.code]).toEqual([410, "CACHED_RESULT_EXPIRED"]);
    }
    expect(await ops.balance(org.id)).toBe(balance);
  });

  it("treats a record of an older payload version as expired, on re-fetch and on unlock", async () => {
    const org = await ops.org({}, "5.00");
    const { key } = await ops.key(org.id);
    const p = await preview(key, SEARCH);
    await m.superuser.query("UPDATE query_records SET payload_version = payload_version - 1 WHERE query_id = $1", [
      p.body.queryId,
    ]);
    for (const res of [
      await call("GET", `/api/v1/search/results/${p.body.queryId}`, { key }),
      await unlock(key, { queryId: p.body.queryId }),
    ]) {
      expect([res.status, res.body.error.code]).toEqual([410, "CACHED_RESULT_EXPIRED"]);
    }
    expect(await orgEvents(m.superuser, org.id, "ResultsUnlocked")).toEqual([]);
  });
});

describe("preview", () => {
  it("is free at zero balance, locks every row with a teaser and a cost, and consumes no quota", async () => {
    const org = await ops.org();
    const { key } = await ops.key(org.id);
    const p = await preview(key, { ...SEARCH, limit: 4 });
    expect(p.status).toBe(200);
    expect(p.body.costCharged).toBeNull();
    const rows = p.body.results as { locked: boolean; text: string; tokens: number; cost: string }[];
    expect(rows.every((r) => r.locked && r.text.endsWith("...") && r.tokens > 0)).toBe(true);
    const total = rows.reduce((s, r) => s + BigInt(r.tokens), 0n);
    expect(parseCredits(p.body.costToUnlockRemaining)).toBe((total * 30_000n + 500n) / 1000n);
    expect(RATE_LIMIT_HEADERS.filter((n) => p.headers.has(n))).toEqual([]);
    expect((await call("GET", "/api/v1/search/quota", { key })).body.dailyUsed).toBe(0);
    expect(await orgEvents(m.superuser, org.id, "SearchCharged")).toEqual([]);
  });

  it("honours Idempotency-Key: same body -> first queryId, other 422, running 409; per org; 24 hours", async () => {
    const org = await ops.org({}, "1.00");
    const { key } = await ops.key(org.id);
    const idem = { "Idempotency-Key": "order-42" };
    const first = await preview(key, SEARCH, idem);
    expect([first.status, first.headers.get("idempotency-status")]).toEqual([200, "created"]);
    const again = await preview(key, SEARCH, idem);
    expect([again.status, again.body.queryId, again.headers.get("idempotency-status")]).toEqual([
      200,
      first.body.queryId,
      "replayed",
    ]);
    // a retry after an unlock sees the rows it already bought unlocked
    await unlock(key, { queryId: first.body.queryId, resultIds: [first.body.results[0].id] });
    const afterUnlock = await preview(key, SEARCH, idem);
    expect(afterUnlock.body.results[0].locked).toBe(false);
    const reused = await preview(key, { ...SEARCH, limit: 2 }, idem);
    expect([reused.status, reused.body.error.code]).toEqual([422, "IDEMPOTENCY_KEY_REUSED"]);
    expect((await preview(key, SEARCH, { "Idempotency-Key": "k".repeat(256) })).status).toBe(422);
    // another organization's key space is its own
    const other = await ops.org();
    const otherKey = await ops.key(other.id);
    const theirs = await preview(otherKey.key, { ...SEARCH, limit: 2 }, idem);
    expect([theirs.status, theirs.headers.get("idempotency-status")]).toEqual([200, "created"]);
    // concurrent first uses of one key: one preview runs, the others are told it is in progress or get its queryId
    const burst = await Promise.all(
      Array.from({ length: 6 }, () => preview(key, SEARCH, { "Idempotency-Key": "burst-1" })),
    );
    expect(
      burst.every((r) => r.status === 200 || (r.status === 409 && r.body.error.code === "IDEMPOTENCY_KEY_IN_PROGRESS")),
    ).toBe(true);
    expect(new Set(burst.filter((r) => r.status === 200).map((r) => r.body.queryId)).size).toBe(1);
    // a claim held by a request still running in another process, made before claims were kept per endpoint (its
    // hash the body's alone): the same body is that request, in progress, never "use a new key"
    await m.superuser.query(
      "INSERT INTO preview_idempotency (org_id, idem_key, body_hash, query_id, created_at) VALUES ($1, $2, $3, " +
        "NULL, $4)",
      [org.id, "running-elsewhere", idempotencyBodyHash(SEARCH), m.clock.now().toISOString()],
    );
    const running = await preview(key, SEARCH, { "Idempotency-Key": "running-elsewhere" });
    expect([running.status, running.body.error.code]).toEqual([409, "IDEMPOTENCY_KEY_IN_PROGRESS"]);
    m.clock.advance(24 * 60 * 60 * 1000);
    const fresh = await preview(key, SEARCH, idem);
    expect([fresh.status, fresh.headers.get("idempotency-status")]).toEqual([200, "created"]);
    expect(fresh.body.queryId).not.toBe(first.body.queryId);
  });
});

describe("paid search with an Idempotency-Key", () => {
  it("charges a retried search once: its rows again, free; another body 422; a key lost after its charge", async () => {
    const org = await ops.org({}, "1.00");
    const { key } = await ops.key(org.id);
    const idem = { "Idempotency-Key": "search-7" };
    const first = await q(key, SEARCH, idem);
    expect([first.status, first.headers.get("idempotency-status")]).toEqual([200, "created"]);
    expect(parseCredits(first.headers.get("x-query-cost")!)!).toBeGreaterThan(0n);
    const again = await q(key, SEARCH, idem);
    expect([again.status, again.body.queryId, again.headers.get("idempotency-status")]).toEqual([
      200,
      first.body.queryId,
      "replayed",
    ]);
    expect(again.headers.get("x-query-cost")).toBe("0.000000");
    expect(again.body.results.map((r: { text: string }) => r.text)).toEqual(
      first.body.results.map((r: { text: string }) => r.text),
    );
    const reused = await q(key, { ...SEARCH, limit: 2 }, idem);
    expect([reused.status, reused.body.error.code]).toEqual([422, "IDEMPOTENCY_KEY_REUSED"]);
    // the same body on another endpoint is another request: refused, never the paid search answered as a preview
    const elsewhere = await preview(key, SEARCH, idem);
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([422, "IDEMPOTENCY_KEY_REUSED"]);
    expect(elsewhere.body.error.message).toContain("the same body on another endpoint");
    // another key of the organization never reads the search through the key: refused, nothing charged
    const sibling = await q((await ops.key(org.id)).key, SEARCH, idem);
    expect([sibling.status, sibling.body.error.code]).toEqual([422, "IDEMPOTENCY_KEY_REUSED"]);
    // the first request died after its charge, before its key recorded the search: the retry that takes the
    // abandoned key over finds the charged search (its queryId comes from the key), and charges nothing again
    await m.superuser.query(
      "UPDATE preview_idempotency SET query_id = NULL, created_at = $3 WHERE org_id = $1 AND idem_key = $2",
      [org.id, "search-7", new Date(m.clock.now().getTime() - 3 * 60_000).toISOString()],
    );
    const taken = await q(key, SEARCH, idem);
    expect([taken.status, taken.body.queryId, taken.headers.get("idempotency-status")]).toEqual([
      200,
      first.body.queryId,
      "replayed",
    ]);
    expect(await orgEvents(m.superuser, org.id, "SearchCharged")).toHaveLength(1);
    // without a key each call is its own search, charged
    expect((await q(key, SEARCH)).body.queryId).not.toBe(first.body.queryId);
    expect(await orgEvents(m.superuser, org.id, "SearchCharged")).toHaveLength(2);
  });
});

describe("unlock over HTTP", () => {
  it("checks quota only for new rows: a re-unlock is free and takes nothing from the per-minute budget", async () => {
    const org = await ops.org({ limits: { perMinute: 1 } }, "5.00");
    const { key } = await ops.key(org.id);
    const p = await preview(key, SEARCH);
    const [r0, r1] = p.body.results.map((r: { id: string }) => r.id);
    const first = await unlock(key, { queryId: p.body.queryId, resultIds: [r0] });
    expect(first.status).toBe(200);
    expect(parseCredits(first.body.costCharged)).toBeGreaterThan(0n);
    expect(first.headers.get("x-query-cost")).toBe(first.body.costCharged);
    for (let i = 0; i < 3; i++) {
      const again = await unlock(key, { queryId: p.body.queryId, resultIds: [r0] });
      // nothing new unlocked: costCharged null (the reference's PreviewUnlockResponse), X-Query-Cost zero
      expect([again.status, again.body.costCharged, again.headers.get("x-query-cost")]).toEqual([
        200,
        null,
        "0.000000",
      ]);
    }
    const balance = await ops.balance(org.id);
    const more = await unlock(key, { queryId: p.body.queryId, resultIds: [r1] });
    expect([more.status, more.body.error.code]).toEqual([429, "QUOTA_EXCEEDED"]);
    expect(Number(more.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await ops.balance(org.id)).toBe(balance);
    expect((await orgEvents(m.superuser, org.id, "ResultsUnlocked")).map((e) => e.data.resultIds)).toEqual([[r0]]);
  });

  it("rejects unknown ids and fields with 422, and an unaffordable unlock with 402, leaving all locked", async () => {
    const org = await ops.org({}, "0.000010");
    const { key } = await ops.key(org.id);
    const p = await preview(key, SEARCH);
    expect((await unlock(key, { queryId: p.body.queryId, resultIds: ["nope"] })).body.error.code).toBe(
      "VALIDATION_ERROR",
    );
    expect((await unlock(key, { queryId: p.body.queryId, extra: true })).body.error.code).toBe("VALIDATION_ERROR");
    const poor = await unlock(key, { queryId: p.body.queryId });
    expect([poor.status, poor.body.error.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    const r = await call("GET", `/api/v1/search/results/${p.body.queryId}`, { key });
    expect(r.body.results.every((x: { locked: boolean }) => x.locked)).toBe(true);
    expect(await ops.balance(org.id)).toBe("0.000010");
    expect(await orgEvents(m.superuser, org.id, "ResultsUnlocked")).toEqual([]);
  });

  it("unlocks all when resultIds is omitted, full texts; the event names rows, collections and money", async () => {
    const org = await ops.org({}, "5.00");
    const { key, id: keyId } = await ops.key(org.id);
    const p = await preview(key, SEARCH);
    const u = await unlock(key, { queryId: p.body.queryId, includeFigures: true, imageMaxWidth: 300 });
    expect(u.status).toBe(200);
    expect(u.body.results.every((r: { locked: boolean; text: string }) => !r.locked && !r.text.endsWith("..."))).toBe(
      true,
    );
    expect(u.body.costCharged).toBe(p.body.costToUnlockRemaining);
    expect(u.body.costToUnlockRemaining).toBe("0.000000");
    // includeImages, the reference's deprecated alias of includeFigures, is taken too (a repeat: nothing charged)
    const alias = await unlock(key, { queryId: p.body.queryId, includeImages: true });
    expect([alias.status, alias.body.costCharged]).toEqual([200, null]);
    const [event] = await orgEvents(m.superuser, org.id, "ResultsUnlocked");
    expect(event!.data).toMatchObject({
      keyId,
      queryId: p.body.queryId,
      resultIds: p.body.results.map((r: { id: string }) => r.id),
      amountMicros: String(parseCredits(u.body.costCharged)),
      collections: [{ collection: "scifact", results: 3 }],
    });
    expect(event!.metadata.actor.kind).toBe("workflow");
  });
});

describe("audit, reconciliation and replay", () => {
  it("reconciles per day and collection with no discrepancy; reports a tampered projection and event", async () => {
    const org = await ops.org({}, "3.00");
    const { key } = await ops.key(org.id);
    const day1 = m.clock.now().toISOString().slice(0, 10);
    const s1 = await q(key, SEARCH);
    const s2 = await q(key, {
      collections: ["scifact", "openalex-synergy"],
      query: "muscle relaxants for low back pain",
      limit: 4,
    });
    m.clock.advance(DAY_MS);
    const day2 = m.clock.now().toISOString().slice(0, 10);
    const p = await preview(key, SEARCH);
    const u = await unlock(key, { queryId: p.body.queryId });
    expect(
      (
        await call("POST", `/admin/v1/organizations/${org.id}/refunds`, {
          admin,
          body: { amount: "0.010000", reference: "goodwill", queryId: s1.body.queryId },
        })
      ).status,
    ).toBe(200);
    // a refund tied to a query gives back at most what that query cost, less what was refunded for it, and only for a
    // query this organization paid for: refused, nothing moves
    const beforeBad = await ops.balance(org.id);
    const left = parseCredits(s1.headers.get("x-query-cost")!)! - parseCredits("0.010000")!;
    const refundOf = (body: Record<string, unknown>) =>
      call("POST", `/admin/v1/organizations/${org.id}/refunds`, { admin, body });
    expect((await refundOf({ amount: formatCredits(left + 1n, 6), queryId: s1.body.queryId })).body.error.code).toBe(
      "VALIDATION_ERROR",
    );
    expect((await refundOf({ amount: "0.000001", queryId: "no-such-query" })).body.error.code).toBe("VALIDATION_ERROR");
    const stranger = await ops.org({}, "1.00");
    const strangerSearch = await q((await ops.key(stranger.id)).key, SEARCH);
    expect((await refundOf({ amount: "0.000001", queryId: strangerSearch.body.queryId })).body.error.code).toBe(
      "VALIDATION_ERROR",
    );
    expect(await ops.balance(org.id)).toBe(beforeBad);
    // a refund tied to no query gives back at most what the organization paid in all, less every refund: the
    // stranger paid for one search
    const strangerRefund = (amount: string) =>
      call("POST", `/admin/v1/organizations/${stranger.id}/refunds`, {
        admin,
        body: { amount, reference: "goodwill" },
      });
    const strangerPaid = parseCredits(strangerSearch.headers.get("x-query-cost")!)!;
    expect((await strangerRefund(formatCredits(strangerPaid + 1n, 6))).body.error.message).toBe(
      `amount: the organization has paid ${formatCredits(strangerPaid, 6)} credits in all, less earlier refunds, and ` +
        "a refund gives back at most that; nothing moved. To give credits beyond what was paid, add them as a credit " +
        "instead",
    );
    expect((await strangerRefund(formatCredits(strangerPaid, 6))).status).toBe(200);
    expect((await strangerRefund("0.000001")).status).toBe(422);
    // an operator's credit sent twice with one Idempotency-Key moves money once; the key with another amount, never
    const strangerBalance = await ops.balance(stranger.id);
    const credit = (amount: string) =>
      call("POST", `/admin/v1/organizations/${stranger.id}/credits`, {
        admin,
        body: { amount, reference: "INV-1001" },
        headers: { "Idempotency-Key": "fin-credit-0001" },
      });
    const [once, again] = [await credit("0.500000"), await credit("0.500000")];
    expect([once.status, once.headers.get("idempotency-status"), again.headers.get("idempotency-status")]).toEqual([
      200,
      "created",
      "replayed",
    ]);
    expect(again.body).toEqual(once.body);
    expect((await credit("0.600000")).body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(parseCredits(await ops.balance(stranger.id))).toBe(parseCredits(strangerBalance)! + 500_000n);
    const rec = await call("GET", `/admin/v1/organizations/${org.id}/reconciliation?from=${day1}&to=${day2}`, {
      admin,
    });
    expect(rec.status).toBe(200);
    expect(rec.body.discrepancies).toEqual([]);
    expect(rec.body.ok).toBe(true);
    const costs = [s1, s2].map((r) => parseCredits(r.headers.get("x-query-cost")!)!);
    const charged = costs[0]! + costs[1]! + parseCredits(u.body.costCharged)!;
    expect(rec.body).toMatchObject({ openingBalance: "0.000000", credits: "3.000000", refunds: "0.010000" });
    expect(parseCredits(rec.body.charges)).toBe(charged);
    expect(parseCredits(rec.body.closingBalance)).toBe(3_000_000n - charged + 10_000n);
    expect(rec.body.closingBalance).toBe(await ops.balance(org.id));
    const d1 = rec.body.days.filter((d: { date: string }) => d.date === day1);
    // a search counts on each collection that delivered rows to it
    const lines = (await orgEvents(m.superuser, org.id, "SearchCharged")).flatMap(
      (e) => e.data.collections as { collection: string; amountMicros: string }[],
    );
    for (const c of ["scifact", "openalex-synergy"]) {
      const mine = lines.filter((l) => l.collection === c);
      const row = d1.find((d: { collection: string }) => d.collection === c) ?? { searches: 0, charges: "0.000000" };
      expect([c, row.searches, parseCredits(row.charges)]).toEqual([
        c,
        mine.length,
        mine.reduce((t, l) => t + BigInt(l.amountMicros), 0n),
      ]);
    }
    expect(d1.find((d: { collection: string }) => d.collection === "scifact").searches).toBeGreaterThanOrEqual(1);
    expect(d1.find((d: { collection: string | null }) => d.collection === null)).toMatchObject({ credits: "3.000000" });
    expect(
      rec.body.days.find((d: { date: string; collection: string }) => d.date === day2 && d.collection === "scifact"),
    ).toMatchObject({ searches: 0, unlockedResults: 3, unlocks: u.body.costCharged, refunds: "0.010000" });
    // the refund tied to the scifact search lands on that collection's line, not on the day's collection-less one
    expect(
      rec.body.days.find((d: { date: string; collection: string | null }) => d.date === day2 && d.collection === null),
    ).toBeUndefined();
    // the second day alone opens where the first closed
    const second = await call("GET", `/admin/v1/organizations/${org.id}/reconciliation?from=${day2}&to=${day2}`, {
      admin,
    });
    expect(parseCredits(second.body.openingBalance)).toBe(3_000_000n - costs[0]! - costs[1]!);
    expect(second.body.ok).toBe(true);
    // a day that does not exist, one not yet ended, or a parameter the route does not take, is refused rather than
    // answered "ok"
    for (const path of [
      `/admin/v1/organizations/${org.id}/reconciliation?from=${day2}&to=2099-12-31`,
      `/admin/v1/organizations/${org.id}/reconciliation?from=2026-02-31&to=2026-02-31`,
      `/admin/v1/reconciliation?from=2026-13-01`,
      `/admin/v1/organizations/${org.id}/reconciliation?form=${day2}`,
      `/admin/v1/organizations/${org.id}/ledger?from=${day2}`,
    ]) {
      const refused = await call("GET", path, { admin });
      expect([refused.status, refused.body.error.code], path).toEqual([422, "VALIDATION_ERROR"]);
      expect(refused.body.error.message, path).toMatch(/from|form|after today/);
    }

    // a projection edited behind the log's back
    await m.superuser.query(
      `UPDATE proj_ledger SET amount_micros = amount_micros - 1 WHERE org_id = $1 AND type = 'unlock'`,
      [org.id],
    );
    const tampered = await call("GET", `/admin/v1/organizations/${org.id}/reconciliation`, { admin });
    expect(tampered.body.ok).toBe(false);
    expect(tampered.body.discrepancies.map((d: { kind: string }) => d.kind)).toEqual(
      expect.arrayContaining(["ledger_chain", "ledger_vs_events"]),
    );
    await m.superuser.query(
      `UPDATE proj_ledger SET amount_micros = amount_micros + 1 WHERE org_id = $1 AND type = 'unlock'`,
      [org.id],
    );
    expect((await call("GET", `/admin/v1/organizations/${org.id}/reconciliation`, { admin })).body.ok).toBe(true);

    // an event edited in the log
    const [charge] = await orgEvents(m.superuser, org.id, "SearchCharged");
    await m.superuser.query(
      `UPDATE events SET data = jsonb_set(data, '{amountMicros}', to_jsonb(((data->>'amountMicros')::bigint + ` +
        `5)::text)) WHERE position = $1`,
      [charge!.position],
    );
    const forged = await call("GET", `/admin/v1/organizations/${org.id}/reconciliation`, { admin });
    expect(forged.body.discrepancies.map((d: { kind: string }) => d.kind)).toEqual(
      expect.arrayContaining(["ledger_vs_events", "balance_projection"]),
    );
    const all = await call("GET", "/admin/v1/reconciliation", { admin });
    expect(all.body.ok).toBe(false);
    expect(all.body.organizations.filter((o: { ok: boolean }) => !o.ok).map((o: { orgId: string }) => o.orgId)).toEqual(
      [org.id],
    );
    const verify = await call("GET", "/admin/v1/verify", { admin });
    expect([verify.status, verify.body.error.code, verify.body.error.details.firstBadPosition]).toEqual([
      409,
      "CONFLICT",
      charge!.position,
    ]);
    await m.superuser.query(`UPDATE events SET data = $2 WHERE position = $1`, [
      charge!.position,
      JSON.stringify(charge!.data),
    ]);
    expect((await call("GET", "/admin/v1/verify", { admin })).status).toBe(200);
    expect((await call("GET", "/admin/v1/reconciliation", { admin })).body.ok).toBe(true);
  });

  it("exports the ledger as CSV with the balance after each entry, each tied to its call's request id", async () => {
    const org = await ops.org({}, "2.00");
    const { key } = await ops.key(org.id);
    const s = await q(key, SEARCH, { "X-Request-Id": "fin-search-0001" });
    expect(s.headers.get("x-request-id")).toBe("fin-search-0001");
    // two unlocks of one preview share its queryId: their request ids tell them apart
    const p = await preview(key, { ...SEARCH, query: "exercise and blood pressure" });
    const ids = (p.body.results as { id: string }[]).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(1);
    const unlocks = [];
    for (const [i, resultIds] of [ids.slice(0, 1), ids.slice(1, 2)].entries()) {
      const res = await call("POST", "/api/v1/search/unlock", {
        key,
        body: { queryId: p.body.queryId, resultIds },
        headers: { "X-Request-Id": `fin-unlock-000${i + 1}` },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      unlocks.push(res);
    }
    const entries = (await call("GET", `/admin/v1/organizations/${org.id}/ledger`, { admin })).body.entries as {
      type: string;
      amount: string;
      queryId: string | null;
      requestId: string | null;
    }[];
    expect(entries.map((e) => [e.type, e.requestId])).toEqual([
      ["credit", null],
      ["charge", "fin-search-0001"],
      ["unlock", "fin-unlock-0001"],
      ["unlock", "fin-unlock-0002"],
    ]);
    expect(entries.slice(2).map((e) => [e.queryId, e.amount])).toEqual(
      unlocks.map((u) => [p.body.queryId, `-${u.headers.get("x-query-cost")}`]),
    );
    for (const path of [
      `/admin/v1/organizations/${org.id}/ledger.csv`,
      `/admin/v1/organizations/${org.id}/ledger?format=csv`,
    ]) {
      const res = await call("GET", path, { admin });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
      const lines = (res.body as string).trim().split("\n");
      expect(lines[0]).toBe("time,type,amount,balance_after,key_id,query_id,reference,request_id");
      expect(lines[1]).toMatch(/,credit,2\.000000,2\.000000,,,operator credit,$/);
      expect(lines[2]).toContain(`,charge,-${s.headers.get("x-query-cost")},${s.headers.get("x-credits-remaining")},`);
      expect(lines[2]).toContain(s.body.queryId);
      expect(lines[2]).toMatch(/,fin-search-0001$/);
      expect(lines[4]).toMatch(/,unlock,.*,fin-unlock-0002$/);
    }
    // an id shaped as the service's own (another organization's, sent back) is never adopted: the service names it
    const theirs = "req_9b98ba34cadb41c58b4ffb0a950e1f5b";
    const own = (await q(key, SEARCH, { "X-Request-Id": theirs })).headers.get("x-request-id");
    expect(own).toMatch(/^req_[0-9a-f]{32}$/);
    expect(own).not.toBe(theirs);
  });

  it("replays every projection, the new ones included, equal to the live state", async () => {
    const replay = await call("POST", "/admin/v1/replay", { admin });
    expect(replay.status).toBe(200);
    expect(replay.body.tables.map((t: { table: string }) => t.table)).toEqual(
      expect.arrayContaining(["collection_usage", "price_overrides", "api_keys", "unlocks", "ledger"]),
    );
    expect(replay.body.tables.every((t: { equal: boolean }) => t.equal)).toBe(true);
    const victim = (await m.superuser.query("SELECT org_id, day, collection FROM proj_collection_usage LIMIT 1"))
      .rows[0];
    const bump = (by: number) =>
      m.superuser.query(
        "UPDATE proj_collection_usage SET queries = queries + $4 WHERE org_id = $1 AND day = $2 AND collection = $3",
        [victim.org_id, victim.day, victim.collection, by],
      );
    await bump(1);
    const broken = await call("POST", "/admin/v1/replay", { admin });
    expect(broken.status).toBe(409);
    expect(broken.body.error.code).toBe("CONFLICT");
    expect(broken.body.error.details.tables.find((t: { table: string }) => t.table === "collection_usage").equal).toBe(
      false,
    );
    await bump(-1);
    expect((await call("POST", "/admin/v1/replay", { admin })).status).toBe(200);
  });
});
