// Contention is not an outage, over HTTP on the real service (embedded store): operators crediting organizations
// in parallel while other organizations search (every search answers 200, every balance is exact), and operators
// replaying at the same time (one replay runs, the other is told one is running).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClient, startTestService, type TestService } from "../support/testService.js";
import { formatCredits, parseCredits } from "../../src/domain/money.js";

const WRITERS = 8;
const CREDITS_PER_WRITER = 20;
const SEARCHERS = 16;
const ROUNDS = 4;
const CREDIT = "0.001000";
const START = "50.00";

let service: TestService;
let call: ReturnType<typeof httpClient>;
let admin: string;

beforeAll(async () => {
  service = await startTestService();
  call = httpClient(service.baseUrl);
  admin = service.adminToken;
}, 600_000);

afterAll(async () => {
  await service?.close();
});

async function organization(credits?: string): Promise<string> {
  const org = await call("POST", "/admin/v1/organizations", {
    admin,
    body: { name: "Contention", limits: { perMinute: 1000 } },
  });
  expect(org.status).toBe(201);
  if (credits)
    expect(
      (await call("POST", `/admin/v1/organizations/${org.body.id}/credits`, { admin, body: { amount: credits } }))
        .status,
    ).toBe(200);
  return org.body.id as string;
}

describe("contention over HTTP (embedded store)", () => {
  it("8 parallel credit writers, 16 concurrent searches of other organizations: 0 errors, balances exact", async () => {
    const credited = await Promise.all(Array.from({ length: WRITERS }, () => organization()));
    const searchers = await Promise.all(
      Array.from({ length: SEARCHERS }, async () => {
        const orgId = await organization(START);
        const key = await call("POST", `/admin/v1/organizations/${orgId}/keys`, { admin, body: { mode: "live" } });
        expect(key.status).toBe(201);
        return { orgId, key: key.body.key as string };
      }),
    );

    const failures: string[] = [];
    const costs = new Map<string, bigint>(searchers.map((s) => [s.orgId, 0n]));
    const writers = credited.map(async (orgId) => {
      for (let n = 0; n < CREDITS_PER_WRITER; n++) {
        const res = await call("POST", `/admin/v1/organizations/${orgId}/credits`, {
          admin,
          body: { amount: CREDIT, reference: `top-up ${n}` },
        });
        if (res.status !== 200) failures.push(`credit ${res.status} ${JSON.stringify(res.body)}`);
      }
    });
    const searches = searchers.map(async ({ orgId, key }, i) => {
      for (let round = 0; round < ROUNDS; round++) {
        const res = await call("POST", "/api/v1/search/query", {
          key,
          body: { collection: "scifact", query: `cell biology ${i} ${round}`, limit: 3 },
        });
        if (res.status !== 200) failures.push(`search ${res.status} ${JSON.stringify(res.body)}`);
        else costs.set(orgId, costs.get(orgId)! + parseCredits(res.headers.get("x-query-cost")!)!);
      }
    });
    await Promise.all([...writers, ...searches]);

    expect(failures).toEqual([]);
    const balance = async (orgId: string) =>
      (await call("GET", `/admin/v1/organizations/${orgId}/balance`, { admin })).body.balance as string;
    for (const orgId of credited)
      expect(await balance(orgId)).toBe(formatCredits(BigInt(CREDITS_PER_WRITER) * parseCredits(CREDIT)!, 6));
    for (const { orgId } of searchers)
      expect(await balance(orgId)).toBe(formatCredits(parseCredits(START)! - costs.get(orgId)!, 6));
    const replay = await call("POST", "/admin/v1/replay", { admin });
    expect(replay.body.equal).toBe(true);
    expect((await call("GET", "/admin/v1/verify", { admin })).status).toBe(200);
  }, 300_000);

  it("two concurrent replays: one reports equal, the other 409 CONFLICT (envelope), no false divergence", async () => {
    const answers = await Promise.all([
      call("POST", "/admin/v1/replay", { admin }),
      call("POST", "/admin/v1/replay", { admin }),
    ]);
    const outcomes = answers.map((res) =>
      res.status === 200 && res.body.equal === true
        ? "equal"
        : res.status === 409 && res.body.error?.code === "CONFLICT"
          ? "refused"
          : `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`,
    );
    expect(outcomes.sort()).toEqual(["equal", "refused"]);
    expect(answers.find((res) => res.status === 409)!.body.error.message).toMatch(/already running/);
  }, 120_000);
});
