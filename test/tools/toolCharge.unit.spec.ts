// The money rules of a priced tool call (decide, given/when/then), its projection and its reconciliation fold, without
// I/O.
import { describe, expect, it } from "vitest";
import {
  created,
  credited,
  KEY,
  keyCreated,
  orgSpec,
  searched,
  settingsChanged,
  suspended,
  type MoneyCommand,
} from "../support/moneyDecider.js";
import { DEFAULT_LIMITS, type ProjectableEvent, type StoredEvent } from "../../src/domain/events.js";
import { project, type ProjectionReader } from "../../projections/project.js";
import { foldOrganizationEvents } from "../../src/usecases/operator/reconciliation.js";
import type { BalanceRow, OrganizationRow } from "../../src/usecases/accounts/accountTables.js";
import { FEATURE_PROJECTORS } from "../../src/app/projectors.js";

const given = orgSpec();
// quotas used up (one search a day and a month, made): a tool call is no query, so they must not matter
const quotasUsed = { ...DEFAULT_LIMITS, daily: 1, monthly: 1 };
const org = [created({}, quotasUsed), keyCreated(), credited(1_000n), searched(0n)];
const charge = (priceMicros: bigint): MoneyCommand => ({
  type: "ChargeToolCall",
  keyId: KEY,
  callId: "tc_1",
  tool: "retractions/check",
  priceMicros,
});

describe("ChargeToolCall", () => {
  it("charges a live organization exactly the price, whatever its query quota says", () => {
    expect(
      given(org).when({ type: "ChargeSearch", keyId: KEY, queryId: "q", endpoint: "/query", collections: [] }).code,
    ).toBe("QUOTA_EXCEEDED");
    given(org)
      .when(charge(250n))
      .then([
        {
          type: "ToolCallCharged",
          data: {
            orgId: "org_1",
            keyId: "key_1",
            callId: "tc_1",
            tool: "retractions/check",
            billingMode: "live",
            amountMicros: "250",
          },
        },
      ]);
  });

  it("refuses a price the balance or the key cap cannot cover, and a suspended organization", () => {
    given(org).when(charge(1_001n)).thenRefuses("INSUFFICIENT_CREDITS");
    expect(given(org).when(charge(1_000n)).code).toBe("accepted");
    // a key capped at 100 that has spent 95
    given([created({}, quotasUsed), keyCreated(KEY, 100n), credited(1_095n), searched(95n)])
      .when(charge(10n))
      .thenRefuses("API_KEY_BUDGET_EXCEEDED");
    given([...org, suspended()])
      .when(charge(10n))
      .thenRefuses("BILLING_SUSPENDED");
  });

  it("records a trial or exempt call at zero and never spends the trial allowance", () => {
    const trialUsedUp = [
      created({}, quotasUsed),
      keyCreated(),
      settingsChanged({ billingMode: "trial", trialQueries: 5 }),
      ...Array.from({ length: 5 }, () => searched(0n, { billingMode: "trial" })),
    ];
    given(trialUsedUp)
      .when(charge(250n))
      .thenMatches([{ type: "ToolCallCharged", data: { billingMode: "trial", amountMicros: "0" } }]);
    given([created({}, quotasUsed), keyCreated(), settingsChanged({ billingMode: "exempt" })])
      .when(charge(250n))
      .thenMatches([{ data: { amountMicros: "0" } }]);
  });
});

describe("ToolCallCharged projection and reconciliation", () => {
  const orgRow: OrganizationRow = {
    org_id: "org_1",
    name: "Lab",
    billing_mode: "live",
    limits: { ...DEFAULT_LIMITS },
    hide_balance: false,
    suspended: false,
    version: 3,
    billing_enabled: true,
    trial_queries: 0,
    trial_used: 0,
  };
  const balance: BalanceRow = {
    org_id: "org_1",
    balance_micros: "1000",
    credited_micros: "1000",
    charged_micros: "0",
    refunded_micros: "0",
  };
  const reader: ProjectionReader = {
    organization: () => orgRow,
    balance: () => balance,
    apiKey: () => undefined,
    usage: () => undefined,
    collectionUsage: () => undefined,
    invite: () => undefined,
    member: () => undefined,
    session: () => undefined,
    ingestion: () => undefined,
    webhookEndpoint: () => undefined,
    webhookDelivery: () => undefined,
    alert: () => undefined,
    alertRun: () => undefined,
  };
  const event: ProjectableEvent = {
    type: "ToolCallCharged",
    data: {
      orgId: "org_1",
      keyId: "key_1",
      callId: "tc_1",
      tool: "retractions/check",
      billingMode: "live",
      amountMicros: "250",
    },
    position: 9,
    streamVersion: 4,
    recordedAt: "2026-03-14T10:00:00.000Z",
  };

  it("debits the balance, writes a ledger charge named after the tool, counts money but no query", () => {
    const changes = project(FEATURE_PROJECTORS, event, reader);
    expect(changes.find((c) => c.table === "organizations")?.row).toMatchObject({ version: 4 });
    expect(changes.find((c) => c.table === "balances")?.row).toMatchObject({
      balance_micros: "750",
      charged_micros: "250",
    });
    expect(changes.find((c) => c.table === "ledger")?.row).toMatchObject({
      type: "charge",
      amount_micros: "-250",
      balance_after_micros: "750",
      query_id: "tc_1",
      reference: "tool:retractions/check",
    });
    const usage = changes.filter((c) => c.table === "usage").map((c) => c.row);
    expect(usage).toHaveLength(2);
    for (const row of usage) expect(row).toMatchObject({ queries: 0, amount_micros: "250" });
    expect(changes.some((c) => c.table === "collection_usage")).toBe(false);
  });

  it("folds into the charges of the day on the line of no collection", () => {
    const stored = (e: ProjectableEvent): StoredEvent => ({
      ...e,
      streamId: "org-org_1",
      metadata: { actor: { kind: "key", id: "key_1" } },
      prevHash: "",
      hash: "",
    });
    const credit = stored({
      type: "CreditsAdded",
      data: { orgId: "org_1", amountMicros: "1000", reference: "r" },
      position: 8,
      streamVersion: 3,
      recordedAt: "2026-03-14T09:00:00.000Z",
    });
    const fold = foldOrganizationEvents([credit, stored(event)], { from: null, to: null });
    expect(fold.totals).toEqual({ credits: 1000n, charges: 250n, refunds: 0n });
    expect(fold.closing).toBe(750n);
    expect(fold.lines).toEqual([
      {
        day: "2026-03-14",
        collection: null,
        searches: 0,
        chargesMicros: 250n,
        unlocksMicros: 0n,
        unlockedResults: 0,
        creditsMicros: 1000n,
        refundsMicros: 0n,
      },
    ]);
  });
});
