// The pure rules of alerts: a definition's checks (each refusal names its field), the work identity the seen-set keeps
// (DOI lower-cased across chunks and collections, else the collection's document id), what a run delivers, and how
// the alert events project.
import { describe, expect, it } from "vitest";
import {
  alertDefinitionOf,
  firstHeldIn,
  heldBefore,
  HELD_MARGIN_MS,
  MAX_WORKS_SEARCHED,
  newSince,
  selectRun,
  worksCondition,
  worksOf,
  worksToSearch,
  type AlertRequest,
} from "../../src/usecases/alerts/alertRules.js";
import { compileToPredicate } from "../../src/filters/compileToPredicate.js";
import { Rejection } from "../../src/domain/rejection.js";
import { project } from "../../projections/project.js";
import { memoryReader, memoryTables } from "../../projections/memoryTables.js";
import type { DomainEvent, ProjectableEvent } from "../../src/domain/events.js";
import type { AlertRow, AlertRunRow } from "../../src/usecases/alerts/alertTables.js";
import { FEATURE_PROJECTORS } from "../../src/app/projectors.js";

/** The work a row belongs to, as the seen-set keeps it. */
const workOf = (row: Parameters<typeof worksOf>[0][number]) => worksOf([row])[0];

function refusal(req: AlertRequest): { code: string; field: unknown; message: string } {
  try {
    alertDefinitionOf(req);
  } catch (err) {
    expect(err).toBeInstanceOf(Rejection);
    const r = err as Rejection;
    return { code: r.code, field: r.details?.field, message: r.message };
  }
  throw new Error("accepted");
}

const row = (
  id: string,
  doc: string,
  relevance: number | null,
  opts: { doi?: string; physical?: string; tokens?: number } = {},
) => ({
  id,
  collection: opts.physical ?? "pubmed",
  physical: opts.physical ?? "pubmed",
  metadata: { doc_id: doc, doi: opts.doi ?? null },
  relevance,
  tokens: opts.tokens ?? 1000,
  pricePer1000Micros: "10000",
  costMicros: String((opts.tokens ?? 1000) * 10),
});

describe("an alert definition", () => {
  it("takes collection or collections, with defaults for the rest", () => {
    const def = alertDefinitionOf({ query: " CRISPR base editing ", collection: "pubmed" });
    expect(def).toEqual({
      query: "CRISPR base editing",
      collections: ["pubmed"],
      filters: null,
      minRelevance: 0,
      onePerDocument: true,
      schedule: "on_ingest",
      maxCostPerRunMicros: null,
      webhookEndpointId: null,
    });
    const full = alertDefinitionOf({
      query: "tau protein",
      collections: ["pubmed", "scifact", "pubmed"],
      filters: { year: { gte: 2020 } },
      min_relevance: 0.4,
      one_per_document: false,
      schedule: "weekly",
      max_cost_per_run: "0.50",
      webhook: "we_abcdefghijklmnopqrstu1234",
    });
    expect(full.collections).toEqual(["pubmed", "scifact"]);
    expect(full.maxCostPerRunMicros).toBe("500000");
    expect(full.schedule).toBe("weekly");
    expect(full.webhookEndpointId).toBe("we_abcdefghijklmnopqrstu1234");
  });

  it("refuses what it cannot run, naming the field", () => {
    expect(refusal({ collection: "pubmed" }).field).toBe("query");
    expect(refusal({ query: "the of and", collection: "pubmed" }).code).toBe("INVALID_QUERY");
    expect(refusal({ query: "tau\u0000", collection: "pubmed" }).field).toBe("query");
    expect(refusal({ query: "tau protein", collection: "pubmed", collections: ["scifact"] }).message).toMatch(
      /either collection or collections/,
    );
    expect(refusal({ query: "tau protein" }).field).toBe("collections");
    expect(refusal({ query: "tau protein", collections: [] }).field).toBe("collections");
    expect(refusal({ query: "tau protein", collections: Array.from({ length: 11 }, (_, i) => `c${i}`) }).field).toBe(
      "collections",
    );
    expect(refusal({ query: "tau protein", collection: "pubmed", min_relevance: 1.5 }).field).toBe("min_relevance");
    expect(refusal({ query: "tau protein", collection: "pubmed", one_per_document: "yes" }).field).toBe(
      "one_per_document",
    );
    expect(refusal({ query: "tau protein", collection: "pubmed", schedule: "hourly" }).message).toMatch(
      /on_ingest, daily, weekly/,
    );
    expect(refusal({ query: "tau protein", collection: "pubmed", max_cost_per_run: "0" }).field).toBe(
      "max_cost_per_run",
    );
    expect(refusal({ query: "tau protein", collection: "pubmed", max_cost_per_run: 5 }).field).toBe("max_cost_per_run");
    expect(refusal({ query: "tau protein", collection: "pubmed", webhook: "https://example.org/hook" }).field).toBe(
      "webhook",
    );
  });
});

describe("the seen-set", () => {
  it("knows a work by its DOI across chunks and collections, else by its document id", () => {
    expect(workOf(row("a", "p1", 1, { doi: "10.1/ABC" }))).toBe(
      workOf(row("b", "other", 1, { doi: "10.1/abc", physical: "scifact" })),
    );
    expect(workOf(row("a", "p1", 1))).toBe(workOf(row("b", "p1", 0.5)));
    expect(workOf(row("a", "p1", 1))).not.toBe(workOf(row("a", "p2", 1)));
    expect(worksOf([row("a", "p1", 1), row("b", "p1", 1), row("c", "p2", 1)])).toHaveLength(2);
    expect(workOf(row("a", "p1", 1, { doi: "10.1/ABC" }))).toBe("doi:10.1/abc");
    expect(workOf(row("a", "p1", 1))).toBe("pubmed/p1");
  });
});

describe("the works held when an alert was created", () => {
  const created = new Date("2026-12-01T12:00:00Z");
  const at = (offsetMs: number) => new Date(created.getTime() + offsetMs);
  it("counts as seen a work first held before the alert, or held before first times were kept", () => {
    const times = new Map([
      ["doi:10.1/old", at(-3_600_000)],
      ["doi:10.1/new", at(60_000)],
    ]);
    expect([...heldBefore(["doi:10.1/old", "doi:10.1/new", "pubmed/7"], times, created)]).toEqual([
      "doi:10.1/old",
      "pubmed/7",
    ]);
  });
  it("leaves new a work held within the margin before the alert: its first search may have missed it", () => {
    const times = new Map([
      ["a/1", at(-HELD_MARGIN_MS + 1)],
      ["a/2", at(-HELD_MARGIN_MS)],
    ]);
    expect([...heldBefore(["a/1", "a/2"], times, created)]).toEqual(["a/2"]);
  });
  it("reads a work's first time in the alert's own collections only, the earliest of them", () => {
    const times = new Map([
      [
        "doi:10.1/x",
        [
          { collection: "pubmed", at: at(-7_200_000) },
          { collection: "arxiv", at: at(60_000) },
          { collection: "reef", at: at(120_000) },
        ],
      ],
    ]);
    // held by pubmed long before: seen by an alert watching pubmed and arxiv
    expect(firstHeldIn(times, new Set(["pubmed", "arxiv"])).get("doi:10.1/x")).toEqual(at(-7_200_000));
    // an alert watching arxiv and reef never held it before: it is new to it
    expect(firstHeldIn(times, new Set(["arxiv", "reef"])).get("doi:10.1/x")).toEqual(at(60_000));
    expect(firstHeldIn(times, new Set(["scifact"])).has("doi:10.1/x")).toBe(false);
  });
});

describe("a run", () => {
  it("delivers only new works: a changed work already seen is not delivered again", () => {
    const seen = new Set(worksOf([row("old", "p1", 1, { doi: "10.1/old" }), row("x", "p2", 1)]));
    // p1 was changed (new chunk ids) and is found under its DOI again; p2 by its document id
    const ranked = [
      row("changed", "p1-v2", 0.9, { doi: "10.1/OLD" }),
      row("x2", "p2", 0.8),
      row("n1", "p3", 0.7),
      row("n1b", "p3", 0.6),
      row("n2", "p4", 0.5),
    ];
    const run = selectRun(ranked, seen, { minRelevance: 0, onePerDocument: true, maxCostPerRunMicros: null });
    expect(run.rows.map((r) => r.id)).toEqual(["n1", "n2"]);
    expect(run.works).toEqual(worksOf([row("n1", "p3", 1), row("n2", "p4", 1)]));
    const chunks = selectRun(ranked, seen, { minRelevance: 0, onePerDocument: false, maxCostPerRunMicros: null });
    expect(chunks.rows.map((r) => r.id)).toEqual(["n1", "n1b", "n2"]);
    expect(chunks.works).toHaveLength(2);
  });

  it("holds back rows below min_relevance and cuts best first to max_cost_per_run", () => {
    const ranked = [
      row("a", "d1", 0.9),
      row("b", "d2", 0.8),
      row("c", "d3", 0.3),
      row("d", "d4", null),
      row("e", "d5", 0.7),
    ];
    const run = selectRun(ranked, new Set(), { minRelevance: 0.5, onePerDocument: true, maxCostPerRunMicros: "20000" });
    expect(run.rows.map((r) => r.id)).toEqual(["a", "b"]);
    expect(run.belowMinRelevance).toBe(2);
    expect(run.withheldByCost).toBe(1);
    expect(run.costMicros).toBe(20000n);
    // a row held back by the cap stays unseen, and the next run searches it again; one below min_relevance does not
    expect(run.works).not.toContain(workOf(row("e", "d5", 0.7)));
    expect(run.deferred).toEqual([workOf(row("e", "d5", 0.7))]);
  });

  it("delivers nothing when every work was seen, and at most a bounded number of works", () => {
    const MAX_WORKS_PER_RUN = 50; // the works one run delivers at most
    const ranked = Array.from({ length: MAX_WORKS_PER_RUN + 5 }, (_, i) => row(`r${i}`, `d${i}`, 0.9));
    expect(
      selectRun(ranked, new Set(worksOf(ranked)), { minRelevance: 0, onePerDocument: true, maxCostPerRunMicros: null })
        .rows,
    ).toEqual([]);
    const bounded = selectRun(ranked, new Set(), { minRelevance: 0, onePerDocument: true, maxCostPerRunMicros: null });
    expect(bounded.rows).toHaveLength(MAX_WORKS_PER_RUN);
    // the works past the bound wait for the next run
    expect(bounded.deferred).toEqual(worksOf(ranked.slice(MAX_WORKS_PER_RUN)));
  });
});

describe("the works a run searches", () => {
  const at = (iso: string) => new Date(iso);
  const held = [
    { work: "notes/a", collection: "notes", at: at("2031-01-01T00:00:00Z") },
    { work: "doi:10.1/b", collection: "notes", at: at("2031-01-02T00:00:00Z") },
    { work: "other/c", collection: "other", at: at("2031-01-02T00:00:00Z") },
    { work: "notes/d", collection: "notes", at: at("2031-01-02T12:00:00Z") },
  ];

  it("counts from its previous run, or its creation, less the margin", () => {
    const created = "2031-01-01T00:00:00.000Z";
    expect(newSince({ created_at: created, last_run_at: null }).getTime()).toBe(Date.parse(created) - HELD_MARGIN_MS);
    expect(newSince({ created_at: created, last_run_at: "2031-01-02T06:00:00.000Z" }).toISOString()).toBe(
      new Date(Date.parse("2031-01-02T06:00:00.000Z") - HELD_MARGIN_MS).toISOString(),
    );
  });

  it("takes the works its own collections began to hold since then and those held back, less those it has seen", () => {
    const notes = new Set(["notes"]);
    expect(worksToSearch(held, notes, at("2031-01-01T12:00:00Z"), new Set(), [])).toEqual(["doi:10.1/b", "notes/d"]);
    expect(
      worksToSearch(held, notes, at("2031-01-01T12:00:00Z"), new Set(["notes/d"]), ["notes/a", "notes/d"]),
    ).toEqual(["doi:10.1/b", "notes/a"]);
    expect(worksToSearch(held, notes, at("2031-01-03T00:00:00Z"), new Set(), [])).toEqual([]);
  });

  it("names none past its bound: the run then searches its collections whole", () => {
    const many = Array.from({ length: MAX_WORKS_SEARCHED + 1 }, (_, i) => ({
      work: `notes/n${i}`,
      collection: "notes",
      at: at("2031-01-02T00:00:00Z"),
    }));
    expect(worksToSearch(many, new Set(["notes"]), at("2031-01-01T00:00:00Z"), new Set(), [])).toBeNull();
    expect(worksToSearch(many.slice(1), new Set(["notes"]), at("2031-01-01T00:00:00Z"), new Set(), [])).toHaveLength(
      MAX_WORKS_SEARCHED,
    );
  });

  it("selects a work's chunks by its DOI in any collection, else by its document id in its own", () => {
    const works = ["doi:10.1/b", "notes/d", "other/c"];
    const inNotes = compileToPredicate(worksCondition(works, "notes"));
    expect(inNotes({ doc_id: "d", chunk_index: 0 })).toBe(true);
    expect(inNotes({ doc_id: "x", doi: "10.1/B", chunk_index: 0 })).toBe(true);
    // another collection's document of the same id is not the work
    expect(inNotes({ doc_id: "c", chunk_index: 0 })).toBe(false);
    expect(compileToPredicate(worksCondition(works, "other"))({ doc_id: "c", chunk_index: 0 })).toBe(true);
    expect(worksCondition(["other/c"], "notes")).toEqual({ kind: "none" });
  });
});

describe("the projection of alert events", () => {
  const alerts = memoryTables(FEATURE_PROJECTORS.tables);
  const reader = memoryReader(alerts);
  let position = 0;
  const apply = (e: DomainEvent, recordedAt: string) => {
    for (const c of project(
      FEATURE_PROJECTORS,
      { ...e, position: ++position, streamVersion: position, recordedAt } as ProjectableEvent,
      reader,
    ))
      (alerts[c.table] as Map<string, unknown>).set(
        c.table === "alerts" ? (c.row as AlertRow).alert_id : (c.row as AlertRunRow).query_id,
        c.row,
      );
  };
  const definition = alertDefinitionOf({ query: "kelp forests", collection: "notes" });

  it("grows the seen-set by the works each run sends, and keeps each run with how it ended and what it charged", () => {
    apply(
      {
        type: "AlertCreated",
        data: { orgId: "org_a", alertId: "al_1", keyId: "key_1", definition, seenWorks: ["w1", "w2"] },
      },
      "2031-01-01T00:00:00.000Z",
    );
    apply(
      {
        type: "AlertRunStarted",
        data: {
          orgId: "org_a",
          alertId: "al_1",
          queryId: "q1",
          trigger: "ingestion:i1",
          resultIds: ["r3", "r4"],
          works: ["w3", "w4"],
          costMicros: "1200",
          deferredWorks: ["w5"],
        },
      },
      "2031-01-02T00:00:00.000Z",
    );
    expect(alerts.alerts.get("al_1")).toMatchObject({
      state: "active",
      seen: ["w1", "w2", "w3", "w4"],
      deferred: ["w5"],
      runs: 1,
      last_run_at: "2031-01-02T00:00:00.000Z",
    });
    expect(alerts.alert_runs.get("q1")).toMatchObject({
      state: "pending",
      works: ["w3", "w4"],
      cost_micros: "1200",
      amount_micros: "0",
    });
    apply(
      {
        type: "AlertRunEnded",
        data: { orgId: "org_a", alertId: "al_1", queryId: "q1", outcome: "delivered", chargedMicros: "1200" },
      },
      "2031-01-02T00:01:00.000Z",
    );
    expect(alerts.alert_runs.get("q1")).toMatchObject({
      state: "delivered",
      amount_micros: "1200",
      ended_at: "2031-01-02T00:01:00.000Z",
    });
    apply({ type: "AlertPaused", data: { orgId: "org_a", alertId: "al_1" } }, "2031-01-03T00:00:00.000Z");
    expect(alerts.alerts.get("al_1")!.state).toBe("paused");
    apply({ type: "AlertResumed", data: { orgId: "org_a", alertId: "al_1" } }, "2031-01-04T00:00:00.000Z");
    apply({ type: "AlertDeleted", data: { orgId: "org_a", alertId: "al_1" } }, "2031-01-05T00:00:00.000Z");
    expect(alerts.alerts.get("al_1")!.state).toBe("deleted");
  });
});
