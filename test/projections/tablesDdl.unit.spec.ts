// The projection tables' DDL, columns and keys, held byte-identical to a copy taken before the tables moved beside
// their features (issue 50): a move changes where a table is declared, never what the live or replay schema is.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import {
  COLUMNS,
  COLUMN_TYPES,
  PRIMARY_KEYS,
  PROJECTION_TABLES,
  projectionDdl,
  scratchProjectionDdl,
} from "../../projections/tables.js";

const fixture = (name: string) => readFileSync(join(REPO_ROOT, "test/fixtures/projections", name), "utf8");

describe("projection tables", () => {
  it("produce the live and replay DDL byte for byte", () => {
    expect(projectionDdl("proj_")).toBe(fixture("ddl.proj_.sql"));
    expect(projectionDdl("replay_")).toBe(fixture("ddl.replay_.sql"));
  });

  it("produce the rebuild's scratch tables byte for byte", () => {
    expect(scratchProjectionDdl()).toBe(fixture("ddl.scratch.sql"));
  });

  it("keep every table's columns, primary key and column types", () => {
    const before = JSON.parse(fixture("tables.json")) as Record<string, unknown>;
    expect({ PROJECTION_TABLES, PRIMARY_KEYS, COLUMNS, COLUMN_TYPES }).toEqual(before);
    expect(Object.keys(COLUMN_TYPES)).toEqual(Object.keys(before.COLUMN_TYPES as object));
  });
});
