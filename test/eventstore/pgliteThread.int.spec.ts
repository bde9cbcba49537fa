// The embedded store in its worker thread: transactions commit or roll back whole, other queries wait for an open
// transaction, PostgreSQL error codes cross the thread, and an idle store never keeps a process alive.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPglite, pgErrorCode, PG_UNIQUE_VIOLATION, type Db } from "../../src/eventstore/db.js";
import { REPO_ROOT } from "../../src/app/config.js";
import { FEATURE_PROJECTORS } from "../../src/app/projectors.js";

describe("PGlite in its own thread", () => {
  let db: Db;
  beforeEach(async () => {
    db = await openPglite(undefined, FEATURE_PROJECTORS);
    await db.exec("CREATE TABLE t (id int PRIMARY KEY, note text)");
  });
  afterEach(async () => {
    await db.close();
  });

  const count = async () => Number((await db.query<{ n: string }>("SELECT count(*)::text AS n FROM t"))[0]!.n);

  it("commits a transaction whole, rolls it back whole on a throw, keeps a failed statement's error code", async () => {
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO t VALUES (1, $1)", ["one"]);
      await tx.query("INSERT INTO t VALUES (2, $1)", ["two"]);
    });
    expect(await count()).toBe(2);

    const failed = await db
      .transaction(async (tx) => {
        await tx.query("INSERT INTO t VALUES (3, $1)", ["three"]);
        await tx.query("INSERT INTO t VALUES (1, $1)", ["again"]);
      })
      .catch((err: unknown) => err);
    expect(pgErrorCode(failed)).toBe(PG_UNIQUE_VIOLATION);
    expect(await count()).toBe(2);

    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO t VALUES (4, $1)", ["four"]);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await count()).toBe(2);
  });

  it("makes a query from outside wait for the open transaction, then see what it committed", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = db.transaction(async (tx) => {
      await tx.query("INSERT INTO t VALUES (10, $1)", ["inside"]);
      await held;
    });
    // let the insert reach the thread first
    await new Promise((resolve) => setTimeout(resolve, 50));
    let outside: number | undefined;
    const reading = count().then((n) => (outside = n));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(outside).toBeUndefined();
    release();
    await transaction;
    await reading;
    expect(outside).toBe(1);
  });

  it("lets a process that opened a store on disk exit by itself once its calls are answered", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pglite-thread-"));
    try {
      const script = `
        const { openPglite } = await import(${JSON.stringify(join(REPO_ROOT, "src", "eventstore", "db.ts"))});
        const { FEATURE_PROJECTORS } = await import(${JSON.stringify(join(REPO_ROOT, "src", "app", "projectors.ts"))});
        const db = await openPglite(${JSON.stringify(join(dir, "db"))}, FEATURE_PROJECTORS);
        const rows = await db.query('SELECT 41 + 1 AS answer');
        console.log(rows[0].answer);`;
      writeFileSync(join(dir, "probe.mts"), script);
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", join(dir, "probe.mts")], {
        cwd: REPO_ROOT,
        timeout: 60_000,
      });
      expect(stdout.trim()).toBe("42");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
