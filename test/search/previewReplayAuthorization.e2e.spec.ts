// An Idempotency-Key replay of a preview is authorized like a fresh request and never shows another API key's preview.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, httpClient, type TestService, operatorSteps } from "../support/testService.js";

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let admin: string;

const SEARCH = { collection: "scifact", query: "vitamin D and bone fractures", limit: 3 };
const preview = (key: string, idempotencyKey: string, body: Record<string, unknown> = SEARCH) =>
  call("POST", "/api/v1/search/preview", { key, body, headers: { "Idempotency-Key": idempotencyKey } });

/** Every row a request could have written: events (money, unlocks), query records, idempotency claims, rate windows. */
async function recorded(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const table of ["events", "query_records", "preview_idempotency"]) {
    const [row] = await svc.runtime.db.query<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`);
    out[table] = Number(row!.n);
  }
  out.rate_windows = await svc.runtime.db.query("SELECT * FROM rate_windows ORDER BY 1, 2");
  return out;
}

beforeAll(async () => {
  svc = await startTestService();
  call = httpClient(svc.baseUrl);
  admin = svc.adminToken;
}, 600_000);

afterAll(async () => {
  await svc?.close();
});

describe("Idempotency-Key replay", () => {
  it("authorizes a replay like a fresh request and never hands another key its preview or unlocked text", async () => {
    const { newOrg, newKey } = operatorSteps(call, admin);
    const org = await newOrg({ name: "Replay" }, "5.00");
    const owner = await newKey(org.id, { mode: "live" });
    const outside = await newKey(org.id, { mode: "live", collections: ["clinical-digest"] });
    const inside = await newKey(org.id, { mode: "live", collections: ["scifact"] });
    const sandbox = await newKey(org.id, { mode: "test" });

    const first = await preview(owner.key, "order-7");
    expect([first.status, first.headers.get("idempotency-status")]).toEqual([200, "created"]);
    const paidId = first.body.results[0].id as string;
    const unlocked = await call("POST", "/api/v1/search/unlock", {
      key: owner.key,
      body: { queryId: first.body.queryId, resultIds: [paidId] },
    });
    expect(unlocked.status).toBe(200);
    const fullText = unlocked.body.results.find((r: { id: string }) => r.id === paidId).text as string;
    const balance = (await call("GET", `/admin/v1/organizations/${org.id}/balance`, { admin })).body;
    const before = await recorded();

    // a key scoped away from scifact: the same 403 a fresh preview gets, no rows, nothing claimed or recorded
    const scoped = await preview(outside.key, "order-7");
    expect([scoped.status, scoped.body.error?.code]).toEqual([403, "NO_COLLECTION_ACCESS"]);
    expect(scoped.body.results).toBeUndefined();
    expect(JSON.stringify(scoped.body)).not.toContain(first.body.queryId);
    expect(scoped.headers.get("idempotency-status")).toBeNull();
    const freshOutside = await preview(outside.key, "order-8");
    expect([freshOutside.status, freshOutside.body.error?.code]).toEqual([403, "NO_COLLECTION_ACCESS"]);

    // a key that may search scifact still cannot take over another key's preview (its queryId, its unlocked text)
    const sibling = await preview(inside.key, "order-7");
    expect([sibling.status, sibling.body.error?.code]).toEqual([422, "IDEMPOTENCY_KEY_REUSED"]);
    expect(sibling.body.error.message).toMatch(/another API key/);
    expect(JSON.stringify(sibling.body)).not.toContain(fullText.slice(0, 60));

    // a sandbox key of the organization (its previews are synthetic and free) cannot take it over either
    const test = await preview(sandbox.key, "order-7");
    expect([test.status, test.body.error?.code]).toEqual([422, "IDEMPOTENCY_KEY_REUSED"]);
    expect(JSON.stringify(test.body)).not.toContain(first.body.queryId);

    expect(await recorded()).toEqual(before);
    expect((await call("GET", `/admin/v1/organizations/${org.id}/balance`, { admin })).body).toEqual(balance);

    // the key that made the preview still replays it, with the row it paid for unlocked
    const again = await preview(owner.key, "order-7");
    expect([again.status, again.headers.get("idempotency-status"), again.body.queryId]).toEqual([
      200,
      "replayed",
      first.body.queryId,
    ]);
    expect(again.body.results.find((r: { id: string }) => r.id === paidId)).toMatchObject({
      locked: false,
      text: fullText,
    });

    // once revoked, it is refused before anything is looked up
    expect((await call("POST", `/admin/v1/keys/${owner.id}/revoke`, { admin })).status).toBe(200);
    const revoked = await preview(owner.key, "order-7");
    expect([revoked.status, revoked.body.error?.code]).toEqual([401, "API_KEY_REVOKED"]);
    expect((await call("GET", "/admin/v1/verify", { admin })).status).toBe(200);
  });
});
