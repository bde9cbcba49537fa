// How the CLI prints its list commands: aligned text tables a person reads by default, the operator API's JSON with
// --json (for scripts). Pure: the value in, the text out.

type Row = Record<string, unknown>;

/** One column: its heading and how a row's cell reads. */
interface Column {
  heading: string;
  cell: (row: Row) => unknown;
}

const text = (value: unknown): string => {
  if (value === null || value === undefined) return "-";
  if (Array.isArray(value)) return value.map(text).join(",");
  if (typeof value === "object") return JSON.stringify(value);
  // one line a row: a control character or a line break in a name never breaks the table
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return String(value).replace(/[\u0000-\u001f\u007f]+/g, " ");
};

/** The longest cell a table prints; longer ones end in "…". */
const CELL_MAX = 60;

/** An aligned text table of `rows`, one line a row under a heading line; "(none)" when there is no row. */
export function renderTable(rows: readonly Row[], columns: readonly Column[]): string {
  if (rows.length === 0) return "(none)";
  const cells = rows.map((row) =>
    columns.map((c) => {
      const t = text(c.cell(row));
      return t.length > CELL_MAX ? `${t.slice(0, CELL_MAX - 1)}…` : t;
    }),
  );
  const widths = columns.map((c, i) => Math.max(c.heading.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.heading.toUpperCase())), ...cells.map(line)].join("\n");
}

const col = (heading: string, cell: (row: Row) => unknown): Column => ({ heading, cell });
const field = (name: string, heading = name): Column => col(heading, (r) => r[name]);
const rowsOf = (value: unknown, key: string): Row[] =>
  ((value as Record<string, unknown>)[key] as Row[] | undefined) ?? [];

/** The list commands and how each prints as tables. */
const LISTS: Record<string, (value: unknown) => string> = {
  "org list": (v) => {
    const { total, limit, offset } = v as { total?: number; limit?: number; offset?: number };
    const organizations = rowsOf(v, "organizations");
    const table = renderTable(organizations, [
      field("id"),
      field("name"),
      field("billingMode", "billing"),
      field("balance"),
      col("state", (r) => (r.suspended ? "suspended" : r.billingEnabled === false ? "billing off" : "active")),
      field("activeKeys", "keys"),
      field("members"),
    ]);
    if (total === undefined) return table;
    const next = (offset ?? 0) + organizations.length;
    const from = offset ? ` from ${offset}` : "";
    const more = limit !== undefined && next < total ? ` (next: --offset ${next})` : "";
    return `${table}\n${organizations.length} of ${total} organization(s)${from}${more}`;
  },
  "price list": (v) =>
    renderTable(rowsOf(v, "prices"), [
      field("collection"),
      field("pricePer1000", "price/1000"),
      field("catalogPricePer1000", "catalogue"),
      col("overridden", (r) => (r.overridden ? "yes" : "no")),
    ]),
  "member list": (v) =>
    [
      `Members`,
      renderTable(rowsOf(v, "members"), [
        field("memberId", "id"),
        field("email"),
        field("role"),
        field("joinedAt", "joined"),
      ]),
      "",
      "Open invites",
      renderTable(rowsOf(v, "invites"), [
        field("inviteId", "id"),
        field("email"),
        field("role"),
        field("expiresAt", "expires"),
      ]),
    ].join("\n"),
  "collection list": (v) => {
    const { metaCollections, retired } = v as { metaCollections?: Row[]; retired?: string[] };
    return [
      "Collections",
      renderTable(rowsOf(v, "collections"), [
        field("name"),
        field("state"),
        field("documentCount", "documents"),
        field("retrieval"),
        field("pricePer1000", "price/1000"),
        col("last ingestion", (r) => {
          const last = r.lastIngestion as Row | null;
          return last ? `${text(last.state)} ${text(last.finishedAt ?? last.startedAt)}` : null;
        }),
        field("displayName", "display name"),
      ]),
      "",
      "Meta-collections",
      renderTable(metaCollections ?? [], [field("name"), field("members"), field("displayName", "display name")]),
      ...(retired && retired.length > 0 ? ["", `Retired: ${retired.join(", ")}`] : []),
    ].join("\n");
  },
  "webhook list": (v) =>
    renderTable(rowsOf(v, "data"), [
      field("id"),
      field("url"),
      field("events"),
      col("state", (r) => (r.status === "disabled" ? `disabled ${text(r.disabledAt)}` : r.status)),
      col("failing since", (r) => r.failingSince),
      field("description"),
      field("createdAt", "created"),
    ]),
  "journal-requests": (v) =>
    renderTable(rowsOf(v, "journals"), [
      field("issn"),
      field("title"),
      field("requests"),
      field("organizations"),
      field("lastRequestedAt", "last asked"),
    ]),
};

/** A list command's answer as its table, or as the operator API's JSON with `json`. */
export function printList(command: string, value: unknown, json: boolean): string {
  const table = LISTS[command];
  return json || !table ? JSON.stringify(value, null, 2) : table(value);
}
