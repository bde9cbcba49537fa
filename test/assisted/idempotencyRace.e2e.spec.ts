// One Idempotency-Key, one answer, however many requests at once: two API runtimes on one PostgreSQL database and one
// Temporal (the scaled shape's two API processes), 30 concurrent assisted searches with one key split across them.
// While the first runs the others are 409 naming the assisted search, with Retry-After, never 410 "use a new key" (a
// client that obeyed would pay twice); after it finished every repeat is its answer, free. Previews likewise.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMoneyServices, operator, orgEvents, type MoneyServices } from "../money/moneyService.js";
import { parseCredits } from "../../src/domain/money.js";

let m: MoneyServices;
let ops: ReturnType<typeof operator>;

/** a claim the SciFact slice holds evidence for (document 120626, obesity and insulin resistance) */
const ANSWERABLE = "How does obesity lead to insulin resistance and type 2 diabetes?";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  m = await startMoneyServices(2, "2026-11-29T09:00:00Z");
  ops = operator(m.call[0]!, m.admin);
}, 900_000);

afterAll(async () => {
  await m?.close();
});

type Reply = Awaited<ReturnType<MoneyServices["call"][number]>>;

/** `n` requests at once, alternating between the two runtimes. */
const burst = (n: number, send: (i: number) => Promise<Reply>) =>
  Promise.all(Array.from({ length: n }, (_, i) => send(i)));

const describeReply = (r: Reply) =>
  `${r.status} ${r.headers.get("idempotency-status")} ${r.headers.get("x-query-cost")} ${JSON.stringify(
    r.body?.error ?? { queryId: r.body?.queryId },
  )}`;

describe("one Idempotency-Key sent by many at once across two API processes", () => {
  it("assisted search: one run, one charge; 409 naming it while it runs; then its answer to all, free", async () => {
    const org = await ops.org({ limits: { perMinute: 1000 } }, "10.00");
    const { key } = await ops.key(org.id);
    const body = { collection: "scifact", query: ANSWERABLE, allowClarification: false, limit: 3 };
    const send = (i: number) =>
      m.call[i % 2]!("POST", "/api/v1/search/assisted", { key, body, headers: { "Idempotency-Key": "race-1" } });

    const first = await burst(30, send);
    const summary = first.map(describeReply).join("\n");
    const ok = first.filter((r) => r.status === 200);
    const busy = first.filter((r) => r.status !== 200);
    for (const r of busy) {
      expect([r.status, r.body.error.code], summary).toEqual([409, "IDEMPOTENCY_KEY_IN_PROGRESS"]);
      expect(r.body.error.message, summary).toMatch(/^an assisted search with this Idempotency-Key is still running/);
      expect(r.headers.get("retry-after"), summary).toBe("2");
    }
    // the request that ran it answered with its charge; any other 200 replayed the same answer, free
    const created = ok.filter((r) => r.headers.get("idempotency-status") === "created");
    expect(created, summary).toHaveLength(1);
    const original = created[0]!;
    expect(original.body.status, summary).toBe("results");
    const cost = parseCredits(original.headers.get("x-query-cost")!)!;
    expect(cost).toBeGreaterThan(0n);
    for (const r of ok.filter((r) => r !== original)) {
      expect([r.body.queryId, r.headers.get("idempotency-status"), r.headers.get("x-query-cost")]).toEqual([
        original.body.queryId,
        "replayed",
        "0.000000",
      ]);
    }

    // sent again afterwards, at once: every one the original answer, free
    const again = await burst(30, send);
    const ids = original.body.results.map((row: { id: string }) => row.id);
    for (const r of again) {
      expect(r.status, again.map(describeReply).join("\n")).toBe(200);
      expect([r.body.queryId, r.headers.get("idempotency-status"), r.headers.get("x-query-cost")]).toEqual([
        original.body.queryId,
        "replayed",
        "0.000000",
      ]);
      expect(r.body.results.map((row: { id: string }) => row.id)).toEqual(ids);
    }

    // one charge in the ledger, none refunded: the balance is ten credits less the one answer's cost
    const charges = await orgEvents(m.superuser, org.id, "SearchCharged");
    expect(charges.map((e) => [e.data.queryId, e.data.amountMicros])).toEqual([
      [original.body.queryId, cost.toString()],
    ]);
    expect(await orgEvents(m.superuser, org.id, "RefundIssued")).toEqual([]);
    expect(parseCredits(await ops.balance(org.id))).toBe(10_000_000n - cost);
  }, 300_000);

  it("preview: one preview, 409 naming the preview while it runs, then its queryId to all", async () => {
    const org = await ops.org({ limits: { previewPerHour: 100 } });
    const { key } = await ops.key(org.id);
    const body = { collection: "scifact", query: "vitamin D and bone fractures", limit: 3 };
    const send = (i: number) =>
      m.call[i % 2]!("POST", "/api/v1/search/preview", { key, body, headers: { "Idempotency-Key": "race-p" } });
    const first = await burst(20, send);
    const summary = first.map(describeReply).join("\n");
    for (const r of first.filter((r) => r.status !== 200)) {
      expect([r.status, r.body.error.code, r.headers.get("retry-after")], summary).toEqual([
        409,
        "IDEMPOTENCY_KEY_IN_PROGRESS",
        "1",
      ]);
      expect(r.body.error.message, summary).toMatch(/^a preview with this Idempotency-Key is still running/);
    }
    const queryIds = new Set(first.filter((r) => r.status === 200).map((r) => r.body.queryId));
    expect(queryIds.size, summary).toBe(1);
    await sleep(100);
    const again = await burst(20, send);
    expect(new Set(again.map((r) => `${r.status} ${r.body.queryId}`))).toEqual(new Set([`200 ${[...queryIds][0]}`]));
  }, 120_000);
});
