// The discovery object from an inventory and a journals table: ranking, pagination, unranked entries, actions, text.
import { describe, expect, it } from "vitest";
import {
  assembleDiscovery,
  journalLookupOf,
  journalScope,
  nextActionsFor,
  paymentCallout,
  publisherScope,
  sourceScope,
} from "../../src/usecases/catalogue/discovery.js";
import type { CollectionInventory } from "../../src/domain/inventory.js";
import type { JournalRecord } from "../../src/journals/table.js";

const journal = (
  issnL: string,
  title: string,
  h: number | null,
  extra: Partial<JournalRecord> = {},
): JournalRecord => ({
  issnL,
  issns: [issnL],
  title,
  publisher: "Pub A",
  h_index: h,
  i10_index: null,
  two_yr_mean_citedness: null,
  impact_factor: null,
  works_count: null,
  ...extra,
});

const table = [
  journal("1111-1111", "Alpha", 50, { issns: ["1111-1111", "1111-2222"], impact_factor: 3.2 }),
  journal("2222-2222", "Beta", 80, { publisher: "Pub B" }),
  journal("3333-3333", "Gamma", 50),
  journal("4444-4444", "Delta", null, { two_yr_mean_citedness: 0.4 }),
  // a journal known only from DOAJ: in the table, but with no metric at all
  journal("6666-6666", "Omega", null),
  journal("5555-5555", "Epsilon", 10, { publisher: "Pub B" }),
];
const lookup = journalLookupOf(table);
const inventory: CollectionInventory = {
  collection: "c",
  documentCount: 41,
  truncated: false,
  builtAt: "2026-01-01T00:00:00Z",
  entries: [
    { issns: ["1111-2222"], journal: "Alpha J", publisher: "Pub A", documents: 5 },
    { issns: ["2222-2222"], journal: "Beta", publisher: "Pub B", documents: 3 },
    { issns: ["3333-3333"], journal: "Gamma", publisher: "Pub A", documents: 4 },
    { issns: ["4444-4444"], journal: "Delta", publisher: "Pub A", documents: 2 },
    { issns: ["5555-5555"], journal: "Epsilon", publisher: "Pub B", documents: 1 },
    { issns: ["9999-9999"], journal: "Unknown Journal", publisher: "Pub C", documents: 6 },
    { issns: ["6666-6666"], journal: "Omega J", publisher: "Pub A", documents: 1 },
    { issns: [], journal: "Titled Only", publisher: null, documents: 7 },
    { issns: [], journal: null, publisher: null, documents: 12 },
  ],
};
const scope = { name: "c", displayName: "Collection C" };

describe("journalScope", () => {
  it("ranks journals with metrics by h-index, nulls last, ties by title; reports the rest beside total", () => {
    const s = journalScope(scope, inventory, lookup, { topic: null, limit: 50, offset: 0 });
    expect(s.items.map((i) => i.title)).toEqual(["Beta", "Alpha", "Gamma", "Epsilon", "Delta"]);
    expect(s.total).toBe(5);
    expect(s.shown).toBe(5);
    expect(s.rankedBy).toBe("h_index");
    expect(s.items[1]).toMatchObject({
      kind: "journal",
      title: "Alpha",
      publisher: "Pub A",
      hIndex: 50,
      impactFactor: 3.2,
      issnL: "1111-1111",
      issns: ["1111-1111", "1111-2222"],
    });
    // a journal without any metric is reported beside the total like an ISSN the table lacks, under the table's title
    expect(s.unranked.map((i) => i.title)).toEqual(["Titled Only", "Unknown Journal", "Omega"]);
    expect(s).toMatchObject({
      titleOnly: 1,
      unresolvedIssns: 2,
      issnValuesSeen: 7,
      sampledEntries: 0,
      truncatedInventory: false,
    });
    expect(s.publishers).toEqual(["Pub A", "Pub C", "Pub B"]); // by documents
    expect(s.note).toContain("12 of 41 documents carry no journal metadata");
  });

  it("pages without overlap or gap", () => {
    const pages = [0, 2, 4].map((offset) => journalScope(scope, inventory, lookup, { topic: null, limit: 2, offset }));
    expect(pages.flatMap((p) => p.items.map((i) => i.title))).toEqual(["Beta", "Alpha", "Gamma", "Epsilon", "Delta"]);
    expect(pages.map((p) => p.shown)).toEqual([2, 2, 1]);
    expect(journalScope(scope, inventory, lookup, { topic: null, limit: 2, offset: 10 })).toMatchObject({
      total: 5,
      shown: 0,
      items: [],
    });
  });

  it("narrows to one publisher (any case) and to a minimum h-index", () => {
    expect(
      journalScope(scope, inventory, lookup, { topic: null, publisher: "pub b", limit: 50, offset: 0 }).items.map(
        (i) => i.title,
      ),
    ).toEqual(["Beta", "Epsilon"]);
    const floor = journalScope(scope, inventory, lookup, { topic: null, minHIndex: 50, limit: 50, offset: 0 });
    expect(floor.items.map((i) => i.title)).toEqual(["Beta", "Alpha", "Gamma"]);
    expect(floor.unranked).toEqual([]);
  });

  it("with a topic ranks by the weight of relevant content and leaves out journals without any", () => {
    const topicWeights = new Map([
      ["1111-2222", { weight: 0.4, documents: 1 }],
      ["5555-5555", { weight: 2.5, documents: 3 }],
      ["titled only", { weight: 1, documents: 2 }],
    ]);
    const s = journalScope(scope, inventory, lookup, { topic: "sleep", topicWeights, limit: 50, offset: 0 });
    expect(s.items.map((i) => i.title)).toEqual(["Epsilon", "Alpha"]);
    expect(s.items.map((i) => i.matchedBy)).toEqual([
      "content: 3 works close to the topic",
      "content: 1 work close to the topic",
    ]);
    expect(s.rankedBy).toBe("topic_relevance");
    expect(s.unranked.map((i) => i.title)).toEqual(["Titled Only"]);
  });

  // the shares of the OpenAlex SYNERGY works (Cardiology concept scored >= 0.3): Circulation 3 of 7, Stroke 2 of 9
  const cardiology: CollectionInventory = {
    collection: "c",
    documentCount: 75,
    truncated: false,
    builtAt: "2026-01-01T00:00:00Z",
    entries: [
      {
        issns: ["0009-7322"],
        journal: "Circulation",
        publisher: null,
        documents: 7,
        subjects: [
          { name: "Internal medicine", scheme: "openalex_concept", documents: 5 },
          { name: "Cardiology", scheme: "openalex_concept", documents: 3 },
        ],
      },
      { issns: ["0167-5273"], journal: "International Journal of Cardiology", publisher: null, documents: 3 },
      {
        issns: ["0039-2499"],
        journal: "Stroke",
        publisher: null,
        documents: 9,
        subjects: [{ name: "Cardiology", scheme: "openalex_concept", documents: 2 }],
      },
      {
        issns: ["1072-3714"],
        journal: "Menopause",
        publisher: null,
        documents: 40,
        subjects: [
          { name: "Cardiology", scheme: "openalex_concept", documents: 4 },
          { name: "Hormone Replacement Therapy", scheme: "mesh", documents: 30 },
        ],
      },
      {
        issns: ["0002-8703"],
        journal: "American Heart Journal",
        publisher: null,
        documents: 2,
        subjects: [
          { name: "Pediatric cardiology", scheme: "openalex_concept", documents: 1 },
          { name: "Heart Diseases", scheme: "mesh", documents: 1 },
        ],
      },
      {
        issns: ["1234-5678"],
        journal: "Hepatology",
        publisher: null,
        documents: 5,
        subjects: [{ name: "Cardiology research methods", scheme: "openalex_concept", documents: 5 }],
      },
    ],
  };
  const cardiologyTable = journalLookupOf(
    ["0009-7322", "0167-5273", "0039-2499", "1072-3714", "0002-8703", "1234-5678"].map((issn, i) =>
      journal(issn, cardiology.entries[i]!.journal!, 100 - i),
    ),
  );

  it("with a topic a subject names matches journals by subject or title and says how each matched", () => {
    const s = journalScope(scope, cardiology, cardiologyTable, { topic: "cardiology", limit: 50, offset: 0 });
    expect(s.items.map((i) => [i.title, i.matchedBy])).toEqual([
      // by works on the subject, then by share: 3 of 3 before 3 of 7
      ["International Journal of Cardiology", "title: names cardiology"],
      ["Circulation", "subject: Cardiology (OpenAlex concept, 3 of 7 works)"],
      ["American Heart Journal", "subject: Pediatric cardiology (OpenAlex concept, 1 of 2 works)"],
    ]);
    expect(s.total).toBe(3);
    expect(s.rankedBy).toBe("topic_relevance");
    // no content weights are needed, and any given are not used once a journal matched by subject
    const withWeights = journalScope(scope, cardiology, cardiologyTable, {
      topic: "cardiology",
      topicWeights: new Map([["1072-3714", { weight: 9, documents: 20 }]]),
      limit: 50,
      offset: 0,
    });
    expect(withWeights.items.map((i) => i.title)).toEqual(s.items.map((i) => i.title));
    // a MeSH heading matches as a concept does
    const mesh = journalScope(scope, cardiology, cardiologyTable, {
      topic: "hormone replacement therapy",
      limit: 50,
      offset: 0,
    });
    expect(mesh.items.map((i) => [i.title, i.matchedBy])).toEqual([
      ["Menopause", "subject: Hormone Replacement Therapy (MeSH heading, 30 of 40 works)"],
    ]);
  });

  it("with a topic no title or subject names falls back to content, and lists nothing without its weights", () => {
    const none = journalScope(scope, cardiology, cardiologyTable, { topic: "gut microbiome", limit: 50, offset: 0 });
    expect([none.total, none.items]).toEqual([0, []]);
    const byContent = journalScope(scope, cardiology, cardiologyTable, {
      topic: "gut microbiome",
      topicWeights: new Map([["1072-3714", { weight: 0.5, documents: 1 }]]),
      limit: 50,
      offset: 0,
    });
    expect(byContent.items.map((i) => [i.title, i.matchedBy])).toEqual([
      ["Menopause", "content: 1 work close to the topic"],
    ]);
  });

  it("says so when the documents carry no journal metadata", () => {
    const bare: CollectionInventory = {
      ...inventory,
      documentCount: 9,
      entries: [{ issns: [], journal: null, publisher: null, documents: 9 }],
    };
    const s = journalScope(scope, bare, lookup, { topic: null, limit: 50, offset: 0 });
    expect(s.total).toBe(0);
    expect(s.note).toContain("carry no journal metadata");
  });
});

describe("the other scopes, actions, callout and text", () => {
  it("lists publishers by documents and collections with their prices", () => {
    const p = publisherScope(scope, inventory, lookup, 10);
    expect(p.items.map((i) => [i.title, i.documents])).toEqual([
      ["Pub A", 12],
      ["Pub C", 6],
      ["Pub B", 4],
    ]);
    const s = sourceScope(
      scope,
      [{ name: "c", displayName: "Collection C", description: null, documentCount: 40, pricePer1000: "0.050000" }],
      [inventory],
      lookup,
    );
    expect(s.items[0]).toMatchObject({
      kind: "collection",
      title: "Collection C",
      name: "c",
      documents: 40,
      pricePer1000: "0.050000",
    });
  });

  it("gives an issn search hint, the next page, and a journal request", () => {
    const s = journalScope(scope, inventory, lookup, { topic: null, limit: 2, offset: 0 });
    const actions = nextActionsFor("journals", null, [s], { limit: 2 });
    expect(actions.map((a) => a.action)).toEqual(["search", "list_journals", "request_journal"]);
    expect(actions[0]!.hint).toContain('"filters":{"issn":["2222-2222"]}');
    expect(actions[1]!.hint).toContain("/api/v1/search/collections/c/journals?offset=2&limit=2");
  });

  it("asks for a payment method on trial or at zero balance only", () => {
    expect(paymentCallout("trial", 10n)?.kind).toBe("add_payment_method");
    expect(paymentCallout("live", 0n)?.kind).toBe("add_payment_method");
    expect(paymentCallout("live", 1n)).toBeNull();
    expect(paymentCallout("exempt", 0n)).toBeNull();
    expect(paymentCallout("sandbox", 0n)).toBeNull();
  });

  it("sets the metrics note (what they are computed from) when journals are shown; renders the same as text", () => {
    const s = journalScope(scope, inventory, lookup, { topic: null, limit: 50, offset: 0 });
    const basis = "Journal metrics are computed from the 12 OpenAlex works this service indexes.";
    const d = assembleDiscovery(
      {
        intent: "journals",
        topic: null,
        scopes: [s],
        callout: null,
        nextActions: nextActionsFor("journals", null, [s]),
        queryId: "q1",
      },
      basis,
    );
    expect(d.metricsNote!.startsWith(`${basis} hIndex: the h-index of the journal`)).toBe(true);
    expect(d.metricsNote).toContain("it is not a proprietary Journal Impact Factor");
    expect(d.text).toContain(basis);
    expect(d.text).toContain("1. Beta, Pub B (h-index 80; ISSN 2222-2222)");
    expect(d.text).toContain("Reference: q1");
    const p = assembleDiscovery(
      {
        intent: "publishers",
        topic: null,
        scopes: [publisherScope(scope, inventory, lookup, 10)],
        callout: null,
        nextActions: [],
        queryId: "q2",
      },
      basis,
    );
    expect(p.metricsNote).toBeNull();
  });
});
