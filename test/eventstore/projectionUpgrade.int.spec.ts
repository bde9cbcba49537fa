// A store written before a projection table existed: the upgrade's migrate creates the table and fills it from the
// log, so the live projection equals the rebuilt one at once (here: the keys' last use, on both stores).
import { afterEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/eventstore/db.js";
import { migrate } from "../../src/eventstore/schema.js";
import { PROJECTION_READ_MODELS } from "../../src/app/projectors.js";
import { createAccounts } from "../../src/usecases/accounts/accounts.js";
import { replayProjections } from "../../projections/replay.js";
import { DEFAULT_LIMITS, type Actor } from "../../src/domain/events.js";
import { freshStore, STORE_KINDS } from "../support/stores.js";

const operator: Actor = { kind: "operator", id: "test" };
const open: Db[] = [];

afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

describe.each(STORE_KINDS)("upgrading a store on %s", (kind) => {
  it("fills a projection table the store did not have from the events, and replay compares equal", async () => {
    const db = await freshStore(kind);
    open.push(db);
    const accounts = createAccounts(db);
    const org = await accounts.createOrganization(
      { name: "Before the upgrade", billingMode: "live", limits: DEFAULT_LIMITS },
      operator,
    );
    await accounts.addCredits(org.id, 1_000_000n, "top-up", operator);
    const key = await accounts.createKey(
      org.id,
      { mode: "live", collections: null, spendingCapMicros: null },
      operator,
    );
    await accounts.chargeSearch({
      orgId: org.id,
      keyId: key.id,
      queryId: "q-1",
      endpoint: "/query",
      collections: [{ collection: "scifact", tokens: 10, pricePer1000Micros: "1000", amountMicros: "10" }],
    });
    const [used] = await db.query<{ position: string }>(
      "SELECT position::text AS position FROM proj_key_last_used WHERE key_id = $1",
      [key.id],
    );
    expect(used).toBeDefined();

    // the store as an older release left it: no such table, and the schema that release recorded (or none)
    await db.exec("DROP TABLE proj_key_last_used");
    await db.exec("DROP TABLE schema_version");
    await migrate(db, PROJECTION_READ_MODELS);
    expect(
      await db.query<{ position: string }>(
        "SELECT position::text AS position FROM proj_key_last_used WHERE key_id = $1",
        [key.id],
      ),
    ).toEqual([used]);
    const report = await replayProjections(db);
    expect(report.tables.filter((t) => !t.equal)).toEqual([]);
    // an ordinary start changes nothing
    await migrate(db, PROJECTION_READ_MODELS);
    expect((await replayProjections(db)).equal).toBe(true);
  });

  it("keys from before names: the upgrade adds the column, old events replay unnamed, new keys named", async () => {
    const db = await freshStore(kind);
    open.push(db);
    const accounts = createAccounts(db);
    const org = await accounts.createOrganization(
      { name: "Named keys", billingMode: "live", limits: DEFAULT_LIMITS },
      operator,
    );
    const old = await accounts.createKey(
      org.id,
      { mode: "live", collections: null, spendingCapMicros: null },
      operator,
    );
    const [event] = await db.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE type = 'ApiKeyCreated'`,
    );
    expect(event!.data).not.toHaveProperty("name"); // what an older release wrote
    // the live table as an older release left it: no name column, and no record of this release's schema
    await db.exec("ALTER TABLE proj_api_keys DROP COLUMN name");
    await db.exec("DROP TABLE schema_version");
    await migrate(db, PROJECTION_READ_MODELS);
    expect((await accounts.getKey(old.id))!.name).toBeNull();
    const named = await accounts.createKey(
      org.id,
      { mode: "test", collections: null, spendingCapMicros: null, name: "CI smoke tests" },
      operator,
    );
    expect((await accounts.getKey(named.id))!.name).toBe("CI smoke tests");
    expect((await replayProjections(db)).equal).toBe(true);
  });
});
