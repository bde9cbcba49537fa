// A log that moves money every way the accounts and unlocks project it (credits, charges of every kind, trial and
// live unlocks, refunds, settings, prices, suspension, free answers), and its fold through the given projectors: what
// each event changed, in order, and the tables it leaves. Pure memory, for unit tests.
import type { ProjectableEvent } from "../../src/domain/events.js";
import { project, type FeatureProjection } from "../../projections/project.js";
import { memoryReader, memoryTables, putRow } from "../../projections/memoryTables.js";

const ORG = "org_m";
const limits = { queriesPerDay: 100, queriesPerMonth: 1000, resultsPerQuery: 50, requestsPerMinute: 60 };

const RAW: { type: string; at: string; data: object }[] = [
  {
    type: "OrganizationCreated",
    at: "2026-11-01T00:00:00.000Z",
    data: { orgId: ORG, name: "Lab", billingMode: "live", limits, hideBalance: false },
  },
  {
    type: "OrganizationCreated",
    at: "2026-11-01T00:00:01.000Z",
    data: {
      orgId: "org_t",
      name: "Trial",
      billingMode: "trial",
      limits,
      hideBalance: true,
      billingEnabled: false,
      trialQueries: 3,
    },
  },
  {
    type: "CreditsAdded",
    at: "2026-11-01T01:00:00.000Z",
    data: { orgId: ORG, amountMicros: "5000000", reference: "inv-1" },
  },
  {
    type: "ApiKeyCreated",
    at: "2026-11-01T02:00:00.000Z",
    data: {
      keyId: "key_a",
      orgId: ORG,
      mode: "live",
      keyHash: "h1",
      keyPrefix: "ls_a",
      collections: null,
      spendingCapMicros: "900000",
      name: "a",
    },
  },
  {
    type: "ApiKeyCreated",
    at: "2026-11-01T02:00:01.000Z",
    data: {
      keyId: "key_t",
      orgId: "org_t",
      mode: "live",
      keyHash: "h2",
      keyPrefix: "ls_t",
      collections: ["scifact"],
      spendingCapMicros: null,
    },
  },
  {
    type: "SearchCharged",
    at: "2026-11-27T10:00:00.000Z",
    data: {
      orgId: ORG,
      keyId: "key_a",
      queryId: "q1",
      endpoint: "/search",
      billingMode: "live",
      tokens: 120,
      amountMicros: "180000",
      collections: [
        { collection: "scifact", tokens: 80, amountMicros: "120000" },
        { collection: "biomedical", tokens: 40, amountMicros: "60000" },
      ],
    },
  },
  {
    type: "SearchCharged",
    at: "2026-11-27T10:05:00.000Z",
    data: {
      orgId: "org_t",
      keyId: "key_t",
      queryId: "q2",
      endpoint: "/search",
      billingMode: "trial",
      tokens: 10,
      amountMicros: "0",
      collections: [{ collection: "scifact", tokens: 10, amountMicros: "0" }],
    },
  },
  {
    type: "ResultsUnlocked",
    at: "2026-11-28T09:00:00.000Z",
    data: {
      orgId: ORG,
      keyId: "key_a",
      queryId: "q1",
      billingMode: "live",
      resultIds: ["r1", "r2"],
      tokens: 300,
      amountMicros: "400000",
      collections: [{ collection: "scifact", tokens: 300, amountMicros: "400000", results: 2 }],
      workflowId: "w1",
    },
  },
  {
    type: "ResultsUnlocked",
    at: "2026-11-28T09:01:00.000Z",
    data: {
      orgId: "org_t",
      keyId: "key_t",
      queryId: "q2",
      billingMode: "trial",
      resultIds: ["r9"],
      tokens: 5,
      amountMicros: "0",
      collections: [{ collection: "scifact", tokens: 5, amountMicros: "0", results: 1 }],
      workflowId: "w2",
    },
  },
  {
    type: "ToolCallCharged",
    at: "2026-11-29T08:00:00.000Z",
    data: {
      orgId: ORG,
      keyId: "key_a",
      callId: "c1",
      tool: "retractions_check",
      billingMode: "live",
      amountMicros: "7000",
    },
  },
  {
    type: "ToolCallCharged",
    at: "2026-11-29T08:00:01.000Z",
    data: { orgId: ORG, keyId: "key_a", callId: "c2", tool: "journals_lookup", billingMode: "live", amountMicros: "0" },
  },
  {
    type: "RefundIssued",
    at: "2026-11-29T09:00:00.000Z",
    data: { orgId: ORG, amountMicros: "60000", reference: "goodwill", queryId: "q1" },
  },
  {
    type: "RefundIssued",
    at: "2026-11-29T09:00:01.000Z",
    data: { orgId: ORG, amountMicros: "1000", reference: "rounding", queryId: null },
  },
  {
    type: "LimitsChanged",
    at: "2026-11-29T10:00:00.000Z",
    data: { orgId: ORG, limits: { ...limits, queriesPerDay: 5 }, previous: limits },
  },
  {
    type: "BillingSettingsChanged",
    at: "2026-11-29T10:01:00.000Z",
    data: { orgId: "org_t", billingMode: "live", billingEnabled: true, hideBalance: false, trialQueries: 0 },
  },
  {
    type: "PriceOverrideSet",
    at: "2026-11-29T10:02:00.000Z",
    data: { orgId: ORG, collection: "scifact", pricePer1000Micros: "2500" },
  },
  {
    type: "PriceOverrideSet",
    at: "2026-11-29T10:03:00.000Z",
    data: { orgId: ORG, collection: "scifact", pricePer1000Micros: null },
  },
  { type: "BillingSuspended", at: "2026-11-29T11:00:00.000Z", data: { orgId: ORG, reason: "unpaid" } },
  { type: "BillingResumed", at: "2026-11-29T11:30:00.000Z", data: { orgId: ORG } },
  {
    type: "CatalogueAnswered",
    at: "2026-11-30T00:10:00.000Z",
    data: {
      orgId: ORG,
      keyId: "key_a",
      queryId: "q3",
      endpoint: "/search",
      intent: "journals",
      topic: null,
      collections: ["scifact"],
    },
  },
  {
    type: "WorksFacetsCounted",
    at: "2026-11-30T00:20:00.000Z",
    data: { orgId: ORG, keyId: "key_a", facetsId: "f1", collections: ["scifact"], facets: ["year"], query: true },
  },
  {
    type: "JournalRequested",
    at: "2026-11-30T00:30:00.000Z",
    data: { orgId: "org_t", keyId: "key_t", requestId: "j1", title: "J", issn: null, note: null },
  },
  { type: "RetractionsLoaded", at: "2026-11-30T00:40:00.000Z", data: {} },
];

export const MONEY_EVENTS: ProjectableEvent[] = RAW.map(
  ({ type, at, data }, i) =>
    ({ type, data, position: i + 1, streamVersion: i + 1, recordedAt: at }) as unknown as ProjectableEvent,
);

type Projector = (f: FeatureProjection, e: ProjectableEvent, read: ReturnType<typeof memoryReader>) => unknown[];

/** Every event's changes in order (each row as it stood then) and the tables they leave, rows sorted by key. */
export function foldMoney(projectors: FeatureProjection, run: Projector = project as Projector) {
  const tables = memoryTables(projectors.tables);
  const changes: unknown[] = [];
  for (const e of MONEY_EVENTS)
    for (const c of run(projectors, e, memoryReader(tables)) as { table: keyof typeof tables; row: object }[]) {
      changes.push(structuredClone(c));
      putRow(tables, projectors.tables[c.table], c.row);
    }
  const after = Object.fromEntries(
    Object.entries(tables).map(([t, rows]) => [
      t,
      [...(rows as Map<string, object>)].sort(([a], [b]) => (a < b ? -1 : 1)),
    ]),
  );
  return { changes, tables: after };
}
