// Operator money commands on the embedded store: the decider alone decides which amounts a command accepts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/eventstore/db.js";
import { createAccounts } from "../../src/usecases/accounts/accounts.js";
import { createOperations, type Operations } from "../../src/usecases/operator/operations.js";
import { freshStore } from "../support/stores.js";
import { replayProjections } from "../../projections/replay.js";

let db: Db;
let operations: Operations;

beforeAll(async () => {
  db = await freshStore("pglite");
  operations = createOperations(createAccounts(db));
});

afterAll(async () => {
  await db?.close();
});

const eventCount = async () => Number((await db.query<{ n: string }>("SELECT count(*)::text AS n FROM events"))[0]!.n);
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "accepted",
    (err: { code?: string; message?: string }) => `${err.code}: ${err.message}`,
  );

describe("operator credits and refunds", () => {
  it("refuses a zero or negative amount (VALIDATION_ERROR), appending nothing; a positive one moves it", async () => {
    const org = await operations.createOrganization({ name: "Amounts", billingMode: "live" });
    const before = await eventCount();
    expect(await refusal(operations.addCredits(org.id, "0.00"))).toBe(
      "VALIDATION_ERROR: amount must be greater than zero",
    );
    expect(await refusal(operations.issueRefund(org.id, "0"))).toBe(
      "VALIDATION_ERROR: amount must be greater than zero",
    );
    expect(await refusal(operations.addCredits(org.id, "-1.00"))).toMatch(
      /^VALIDATION_ERROR: amount must be a non-negative decimal string/,
    );
    expect(await eventCount()).toBe(before);
    expect(await operations.addCredits(org.id, "2.50")).toEqual({ balance: "2.500000", replayed: false });
    // nothing paid yet: a refund tied to no query gives back at most what was paid, so none
    expect(await refusal(operations.issueRefund(org.id, "0.000001"))).toMatch(
      /^VALIDATION_ERROR: amount: the organization has paid 0\.000000 credits in all/,
    );
    expect(await eventCount()).toBe(before + 1);
  });

  it("moves money once per Idempotency-Key: a retry adds nothing, the key with another amount is refused", async () => {
    const org = await operations.createOrganization({ name: "Retries", billingMode: "live" });
    const first = await operations.addCredits(org.id, "0.50", "INV-1001", "fin-credit-0001");
    expect(first).toEqual({ balance: "0.500000", replayed: false });
    const before = await eventCount();
    expect(await operations.addCredits(org.id, "0.50", "INV-1001", "fin-credit-0001")).toEqual({
      balance: "0.500000",
      replayed: true,
    });
    expect(await refusal(operations.addCredits(org.id, "0.75", "INV-1001", "fin-credit-0001"))).toMatch(
      /^IDEMPOTENCY_KEY_REUSED: Idempotency-Key was used for a credit of 0\.500000 credits/,
    );
    // a refund under the credit's key is another movement: refused
    expect(await refusal(operations.issueRefund(org.id, "0.50", "INV-1001", undefined, "fin-credit-0001"))).toMatch(
      /^IDEMPOTENCY_KEY_REUSED/,
    );
    expect(await eventCount()).toBe(before);
    // the same key in another organization is its own
    const other = await operations.createOrganization({ name: "Other", billingMode: "live" });
    expect(await operations.addCredits(other.id, "0.50", "INV-1001", "fin-credit-0001")).toEqual({
      balance: "0.500000",
      replayed: false,
    });
    expect(await refusal(operations.addCredits(org.id, "1", undefined, ""))).toMatch(/Idempotency-Key must be 1 to/);
  });
});

describe("operator keys", () => {
  it("creates and revokes keys through the key decider: an event each, a second revoke a no-op; replays", async () => {
    const org = await operations.createOrganization({ name: "Keys", billingMode: "live" });
    const created = await operations.createKey(org.id, { mode: "live", collections: ["scifact"], spendingCap: "1.50" });
    expect(created.key).toMatch(/^sk_live_/);
    expect(await operations.getKey(created.id)).toMatchObject({
      orgId: org.id,
      mode: "live",
      collections: ["scifact"],
      spendingCap: "1.500000",
      revoked: false,
    });
    expect(await operations.revokeKey(created.id)).toEqual({ id: created.id, revoked: true });
    expect(await operations.revokeKey(created.id)).toEqual({ id: created.id, revoked: true });
    const events = await db.query<{ type: string; stream_version: number }>(
      "SELECT type, stream_version FROM events WHERE stream_id = $1 ORDER BY stream_version",
      [`key-${created.id}`],
    );
    expect(events).toEqual([
      { type: "ApiKeyCreated", stream_version: 1 },
      { type: "ApiKeyRevoked", stream_version: 2 },
    ]);
    expect((await operations.getKey(created.id)).revoked).toBe(true);
    expect(await refusal(operations.revokeKey("key_missing"))).toBe("NOT_FOUND: API key key_missing not found");
    expect(await refusal(operations.createKey("org_missing", { mode: "live" }))).toMatch(/^NOT_FOUND: /);
    expect((await replayProjections(db)).equal).toBe(true);
  });
});
