// Concurrent unlocks over HTTP on the real stack: each response reports what its own call paid, so a client adding up
// `costCharged` (or `X-Query-Cost`, or `X-Tokens-Used`) over its responses gets the balance drop and the events'
// totals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMoneyServices, operator, orgEvents, type MoneyServices } from "../money/moneyService.js";
import { parseCredits } from "../../src/domain/money.js";

let m: MoneyServices;
let call: MoneyServices["call"][number];
let ops: ReturnType<typeof operator>;

const preview = (key: string, limit: number) =>
  call("POST", "/api/v1/search/preview", {
    key,
    body: { collection: "scifact", query: "vitamin D and bone fractures", limit },
  });
const unlock = (key: string, body: Record<string, unknown>) => call("POST", "/api/v1/search/unlock", { key, body });
type Response = Awaited<ReturnType<typeof unlock>>;

const sum = (values: bigint[]) => values.reduce((s, v) => s + v, 0n);
// a call that unlocked nothing new answers costCharged null (its X-Query-Cost says 0.000000)
const charged = (res: Response) => (res.body.costCharged === null ? 0n : parseCredits(res.body.costCharged)!);
const headerCost = (res: Response) => parseCredits(res.headers.get("x-query-cost")!)!;
const unlockedIds = (res: Response) =>
  res.body.results.filter((r: { locked: boolean }) => !r.locked).map((r: { id: string }) => r.id) as string[];

beforeAll(async () => {
  m = await startMoneyServices(1, "2026-05-10T12:00:00Z");
  call = m.call[0]!;
  ops = operator(call, m.admin);
}, 600_000);

afterAll(async () => {
  await m?.close();
});

describe("concurrent unlocks report what each call paid", () => {
  it("20 identical calls: one pays, 19 report costCharged null, rows unlocked; sum is the balance drop", async () => {
    // a per-minute budget of 1: the 19 calls that unlock nothing new must take none of it
    const org = await ops.org({ limits: { perMinute: 1 } }, "5.00");
    const { key } = await ops.key(org.id);
    const p = await preview(key, 5);
    expect(p.status).toBe(200);
    const ids = p.body.results.slice(0, 3).map((r: { id: string }) => r.id);
    const before = parseCredits(await ops.balance(org.id))!;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => unlock(key, { queryId: p.body.queryId, resultIds: ids })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const drop = before - parseCredits(await ops.balance(org.id))!;
    expect(drop).toBeGreaterThan(0n);
    expect(sum(responses.map(charged))).toBe(drop);
    expect(sum(responses.map(headerCost))).toBe(drop);
    expect(responses.filter((r) => charged(r) !== 0n)).toHaveLength(1);
    expect(
      responses
        .filter((r) => charged(r) === 0n)
        .every(
          (r) =>
            r.body.costCharged === null &&
            r.headers.get("x-query-cost") === "0.000000" &&
            r.headers.get("x-tokens-used") === "0",
        ),
    ).toBe(true);
    // every response shows the rows unlocked in full, and the balance after the one charge
    for (const r of responses) {
      expect(unlockedIds(r).sort()).toEqual([...ids].sort());
      expect(parseCredits(r.headers.get("x-credits-remaining")!)).toBe(before - drop);
    }
    const events = await orgEvents(m.superuser, org.id, "ResultsUnlocked");
    expect(events.map((e) => BigInt(e.data.amountMicros))).toEqual([drop]);
    expect(sum(responses.map((r) => BigInt(r.headers.get("x-tokens-used")!)))).toBe(BigInt(events[0]!.data.tokens));
    // the one charge took the one slot of the minute: new rows now wait for the next minute
    const more = await unlock(key, { queryId: p.body.queryId, resultIds: [p.body.results[3].id] });
    expect([more.status, more.body.error?.code]).toEqual([429, "QUOTA_EXCEEDED"]);
  });

  it("20 calls with overlapping resultIds: each row paid once, by the call unlocking it; the sums match", async () => {
    const org = await ops.org({}, "5.00");
    const { key } = await ops.key(org.id);
    const p = await preview(key, 10);
    const all: string[] = p.body.results.map((r: { id: string }) => r.id);
    expect(all).toHaveLength(10);
    const before = parseCredits(await ops.balance(org.id))!;
    // call i asks for rows i, i+1 and i+3 (mod 10): every row is asked for by six calls, in different company
    const asked = Array.from({ length: 20 }, (_, i) => [all[i % 10]!, all[(i + 1) % 10]!, all[(i + 3) % 10]!]);
    const responses = await Promise.all(asked.map((resultIds) => unlock(key, { queryId: p.body.queryId, resultIds })));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const drop = before - parseCredits(await ops.balance(org.id))!;
    expect(drop).toBe(parseCredits(p.body.costToUnlockRemaining));
    expect(sum(responses.map(charged))).toBe(drop);
    expect(sum(responses.map(headerCost))).toBe(drop);
    responses.forEach((r, i) => expect(unlockedIds(r)).toEqual(expect.arrayContaining(asked[i]!)));
    // each unlock event is one response's charge, and the events unlocked every row exactly once
    const events = await orgEvents(m.superuser, org.id, "ResultsUnlocked");
    const paid = (list: bigint[]) => list.filter((v) => v !== 0n).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(paid(responses.map(charged))).toEqual(paid(events.map((e) => BigInt(e.data.amountMicros))));
    expect(events.flatMap((e) => e.data.resultIds as string[]).sort()).toEqual([...all].sort());
    // each call that paid reports the balance right after its own charge, whatever the others charged since: the
    // balances after each charge in the log's order, one per paying call
    let balance = before;
    const afterEach = events.map((e) => (balance -= BigInt(e.data.amountMicros)));
    const reported = responses
      .filter((r) => charged(r) !== 0n)
      .map((r) => parseCredits(r.headers.get("x-credits-remaining")!)!);
    const order = (list: bigint[]) => [...list].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(order(reported)).toEqual(order(afterEach));
    expect(sum(responses.map((r) => BigInt(r.headers.get("x-tokens-used")!)))).toBe(
      sum(events.map((e) => BigInt(e.data.tokens))),
    );
  });
});
