// Projection tables as the features declare them, and the SQL that serves them all: each feature declares its tables
// (columns with their SQL types, primary key, DDL under a name prefix) beside its projection in src/usecases/<feature>/
// and its rows into RowOf; the composition root hands the whole list to the store with its projectors (Db.projectors),
// and migration, the inline projector and replay run over that list.

export type TablePrefix = "proj_" | "replay_";

type ColumnType = "text" | "jsonb" | "boolean" | "integer" | "bigint" | "timestamptz";

/**
 * Row types by table name: every feature declares its tables' rows into this interface (declaration merging, e.g.
 * src/usecases/alerts/alertTables.ts), so the registry knows every table without importing the features.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface RowOf {}
export type ProjectionTable = keyof RowOf;

/** One projection table, as its feature declares it. */
export interface TableSpec<T extends ProjectionTable = ProjectionTable> {
  name: T;
  /** every column in a fixed order with its SQL type; money and counters as bigint, decimal strings in TypeScript */
  columns: Readonly<Record<string, ColumnType>>;
  /** used for upserts and for ordering digests */
  primaryKey: readonly string[];
  /** its CREATE TABLE (and the ALTERs and indexes an upgrade added) under a name prefix, each line ending in \n */
  ddl(p: TablePrefix): string;
}

/** Every table, each under its own name (a table left out does not type-check), in the order their DDL runs. */
export type ProjectionTables = { readonly [T in ProjectionTable]: TableSpec<T> };

/** The tables in their DDL order. */
export const tableList = (tables: ProjectionTables): TableSpec[] => Object.values(tables) as TableSpec[];

export const columnsOf = (spec: TableSpec): string[] => Object.keys(spec.columns);

/** A row's primary-key values in the spec's order, joined by NUL: its key among the table's rows. */
export function rowKey(spec: TableSpec, row: object): string {
  const r = row as Record<string, unknown>;
  const columns = spec.primaryKey;
  // indexed, no array per call: replay keys every row it folds
  let key = String(r[columns[0]!]);
  for (let i = 1; i < columns.length; i++) key += `\u0000${String(r[columns[i]!])}`;
  return key;
}

export function projectionDdl(tables: ProjectionTables, p: TablePrefix): string {
  return `\n${tableList(tables)
    .map((t) => t.ddl(p))
    .join("")}`;
}

/**
 * Scratch tables for a rebuild: the live tables' columns, unlogged and without keys or indexes, so the bulk load writes
 * no WAL and maintains no index (the digests sort by primary key themselves).
 */
export function scratchProjectionDdl(tables: ProjectionTables): string {
  return tableList(tables)
    .map(({ name: t }) => `DROP TABLE IF EXISTS replay_${t}; CREATE UNLOGGED TABLE replay_${t} (LIKE proj_${t});`)
    .join("\n");
}
