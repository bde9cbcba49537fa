// The projection tables' DDL, columns and keys, held byte-identical to a copy taken before the tables moved beside
// their features (issue 50): a move changes where a table is declared, never what the live or replay schema is.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import {
  columnsOf,
  projectionDdl as ddlOf,
  scratchProjectionDdl as scratchOf,
  tableList,
} from "../../projections/tables.js";
import { FEATURE_PROJECTORS } from "../../src/app/projectors.js";

// the tables each feature declares beside its projection, as the composition root hands them to the store, in the
// shape the copy was taken in
const specs = tableList(FEATURE_PROJECTORS.tables);
const projectionDdl = (p: "proj_" | "replay_") => ddlOf(FEATURE_PROJECTORS.tables, p);
const scratchProjectionDdl = () => scratchOf(FEATURE_PROJECTORS.tables);
const PROJECTION_TABLES = specs.map((t) => t.name);
const PRIMARY_KEYS = Object.fromEntries(specs.map((t) => [t.name, t.primaryKey]));
const COLUMNS = Object.fromEntries(specs.map((t) => [t.name, columnsOf(t)]));
const COLUMN_TYPES: Record<string, string> = Object.assign({}, ...specs.map((t) => t.columns));

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
    // the copy held one type per column name: no two tables give a column different types (the copy's key order was
    // the order the columns were added to one shared file over time, not a property of the schema)
    for (const t of specs)
      for (const [column, type] of Object.entries(t.columns))
        expect([t.name, column, type]).toEqual([t.name, column, COLUMN_TYPES[column]]);
  });
});
