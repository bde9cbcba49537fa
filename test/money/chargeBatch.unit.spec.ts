import { describe, expect, it } from "vitest";
import { trySnapshot } from "../../src/usecases/accounts/chargeBatch.js";

/** how many batches go straight to a fresh transaction after a lost try */
const FRESH_BATCHES_AFTER_CONFLICT = 16;

describe("a charge batch tries the state the previous batch left (one statement) before a transaction", () => {
  it("only with a snapshot to try", () => {
    expect(trySnapshot("pglite", false, 0)).toBe(false);
    expect(trySnapshot("postgres", false, 0)).toBe(false);
    expect(trySnapshot("postgres", true, 0)).toBe(true);
  });

  it("on PostgreSQL not while batches are still to run fresh after a lost try (another process appended)", () => {
    expect(trySnapshot("postgres", true, FRESH_BATCHES_AFTER_CONFLICT)).toBe(false);
    expect(trySnapshot("postgres", true, 1)).toBe(false);
  });

  it("on PGlite always: only this process appends there", () => {
    expect(trySnapshot("pglite", true, FRESH_BATCHES_AFTER_CONFLICT)).toBe(true);
  });
});
