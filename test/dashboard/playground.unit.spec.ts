// The playground's rules: who may use which key, the form as preview fields, the ticked rows, the quote, a row shown.
import { describe, expect, it } from "vitest";
import {
  mayUseKey,
  playgroundRowOf,
  previewFieldsOfForm,
  reachableCollections,
  selectedRowIds,
  unlockQuote,
  assertConfirmed,
} from "../../src/usecases/playground/playgroundRules.js";
import { Rejection } from "../../src/domain/rejection.js";
import type { CachedRow } from "../../src/domain/resultRow.js";
import { playgroundPage } from "../../src/http/dashboard/playgroundPage.js";
import { queriesPage, queryRowsPage } from "../../src/http/dashboard/queriesPage.js";
import { workPage } from "../../src/http/dashboard/workPage.js";
import type { OpenedQuery } from "../../src/usecases/playground/playground.js";
import type { KeyRow, RecentQuery } from "../../src/usecases/dashboard/consoleData.js";
import type { Work } from "../../src/usecases/works/works.js";

const owner = { memberId: "m_owner", role: "owner" as const };
const member = { memberId: "m_member", role: "member" as const };
const key = (over: Partial<Parameters<typeof mayUseKey>[1]> = {}) => ({
  id: "key_1",
  mode: "live" as const,
  revoked: false,
  createdByMemberId: "m_owner",
  ...over,
});

describe("the playground's keys", () => {
  it("an owner uses any unrevoked key, a member only the keys they created", () => {
    expect(mayUseKey(owner, key())).toBe(true);
    expect(mayUseKey(owner, key({ createdByMemberId: null }))).toBe(true);
    expect(mayUseKey(owner, key({ revoked: true }))).toBe(false);
    expect(mayUseKey(member, key())).toBe(false);
    expect(mayUseKey(member, key({ createdByMemberId: "m_member" }))).toBe(true);
    expect(mayUseKey(member, key({ createdByMemberId: "m_member", revoked: true }))).toBe(false);
  });

  it("the collections the keys reach: all with an unscoped key, else the named ones in catalogue order", () => {
    const catalogue = ["scifact", "pubmed", "biomedical"];
    expect(reachableCollections([{ collections: ["PubMed"] }, { collections: null }], catalogue)).toEqual(catalogue);
    expect(reachableCollections([{ collections: ["biomedical", "SciFact"] }], catalogue)).toEqual([
      "scifact",
      "biomedical",
    ]);
    expect(reachableCollections([], catalogue)).toEqual([]);
  });
});

describe("the preview form", () => {
  const base = { key: "key_1", query: "bone density", collections: " scifact , pubmed ,," };

  it("becomes the preview's fields: collections split, filters parsed, numbers as numbers, empty left out", () => {
    expect(previewFieldsOfForm(base)).toEqual({ collections: ["scifact", "pubmed"], query: "bone density" });
    expect(
      previewFieldsOfForm({
        ...base,
        filters: ' {"year": {"gte": 2020}} ',
        min_relevance: "0.4",
        limit: " 5 ",
        sort: "cited_by_count",
      }),
    ).toEqual({
      collections: ["scifact", "pubmed"],
      query: "bone density",
      filters: { year: { gte: 2020 } },
      min_relevance: 0.4,
      limit: 5,
      sort: "cited_by_count",
    });
  });

  it("refuses what cannot be a preview, naming the field and the fix", () => {
    const refusal = (f: Parameters<typeof previewFieldsOfForm>[0]) => {
      try {
        previewFieldsOfForm(f);
      } catch (err) {
        expect(err).toBeInstanceOf(Rejection);
        return { code: (err as Rejection).code, field: (err as Rejection).details?.field, text: String(err) };
      }
      throw new Error("not refused");
    };
    expect(refusal({ ...base, collections: " , " })).toMatchObject({ code: "VALIDATION_ERROR", field: "collections" });
    expect(refusal({ ...base, filters: "{year: 2020" })).toMatchObject({ field: "filters" });
    expect(refusal({ ...base, filters: "{year: 2020" }).text).toContain("JSON");
    expect(refusal({ ...base, limit: "ten" })).toMatchObject({ field: "limit" });
    expect(refusal({ ...base, min_relevance: "high" })).toMatchObject({ field: "min_relevance" });
  });
});

const row = (id: string, costMicros: string, metadata: Record<string, unknown> = {}): CachedRow => ({
  id,
  collection: "scifact",
  physical: "scifact",
  text: `full text of ${id}`,
  teaser: `teaser of ${id}`,
  metadata: { chunk_index: 0, doc_id: id, ...metadata },
  relevance: 0.5,
  tokens: 100,
  costMicros,
  pricePer1000Micros: "1000",
  figureCount: 0,
});

describe("ticked rows and their cost", () => {
  it("reads row_1 … row_30 once each, in order, ignoring empty and other fields", () => {
    expect(selectedRowIds({ row_2: "b", row_1: "a", row_3: "", row_4: "a", row_31: "z", key: "k" })).toEqual([
      "a",
      "b",
    ]);
  });

  it("quotes only rows not yet unlocked; refuses rows not in the preview and an empty choice", () => {
    const rows = [row("a", "1000"), row("b", "2500"), row("c", "4000")];
    expect(unlockQuote(rows, new Set(["b"]), ["c", "b", "a"])).toEqual({
      toBuy: ["a", "c"],
      alreadyUnlocked: ["b"],
      costMicros: 5000n,
    });
    expect(() => unlockQuote(rows, new Set(), ["a", "other-orgs-row"])).toThrow(/not in this preview: other-orgs-row/);
    expect(() => unlockQuote(rows, new Set(), [])).toThrow(/tick at least one row/);
  });

  it("takes a confirmation of the quote or more; refuses one below it, or negative, naming the cost", () => {
    expect(() => assertConfirmed({ costMicros: 5000n }, 5000n)).not.toThrow();
    expect(() => assertConfirmed({ costMicros: 0n }, 0n)).not.toThrow();
    expect(() => assertConfirmed({ costMicros: 5000n }, 4999n)).toThrow(
      "confirm: the ticked rows cost 0.005000 credits, more than the 0.004999 confirmed; nothing was charged. " +
        "Confirm 0.005000 to unlock them",
    );
    expect(() => assertConfirmed({ costMicros: 0n }, -1n)).toThrow("cannot be negative");
  });

  it("shows a row as a customer reads it: title, journal, year, integrity, cost; text only once unlocked", () => {
    const r = row("a", "1234", {
      title: "<script>alert(1)</script>",
      journal: "Bone",
      publication_date: "2019-04-02",
      integrity: { status: "retracted", notices: [] },
    });
    expect(playgroundRowOf(r, false)).toEqual({
      id: "a",
      workId: "a",
      relevance: 0.5,
      title: "<script>alert(1)</script>",
      journal: "Bone",
      year: "2019",
      integrity: "retracted",
      costMicros: 1234n,
      locked: true,
      text: "teaser of a",
    });
    expect(playgroundRowOf(r, true)).toMatchObject({ locked: false, text: "full text of a" });
    expect(playgroundRowOf(row("b", "0"), false)).toMatchObject({
      title: "(untitled)",
      journal: null,
      year: null,
      integrity: "no notice",
    });
    // a work no list could name (no DOI) is not shown as clear
    expect(
      playgroundRowOf(row("d", "0", { integrity: { status: "none", notices: [], listsChecked: false } }), false)
        .integrity,
    ).toBe("not checked (no DOI)");
    // the work page opens with the DOI, else pmid:…, else the document's id
    expect(playgroundRowOf(row("c", "0", { doi: "10.1/x", pmid: "12" }), false).workId).toBe("10.1/x");
    expect(playgroundRowOf(row("c", "0", { doi: " ", pmid: "12" }), false).workId).toBe("pmid:12");
  });
});

describe("the playground page", () => {
  it("escapes markup in every field a row or a member brings: title, journal, text, key name, the kept form", () => {
    const evil = '<img src=x onerror="alert(1)">';
    const rows = [
      row("r<1>", "1500", {
        title: `${evil} title`,
        journal: `${evil} journal`,
        publication_date: "2020",
        integrity: { status: "retracted", notices: [] },
      }),
    ];
    rows[0]!.teaser = `${evil} teaser`;
    const page = playgroundPage(
      {
        principal: { kind: "member", memberId: "m1", orgId: "o1", role: "owner" },
        email: "a@b.example",
        orgName: `${evil} Lab`,
        csrfToken: "tok",
      },
      {
        keys: [
          {
            id: "key_1",
            prefix: "sk_live_ab",
            name: `${evil} key`,
            mode: "live",
            collections: null,
            spentMicros: 0n,
            spendingCapMicros: null,
            revoked: false,
            createdAt: "2031-01-01T00:00:00Z",
            createdBy: null,
            createdByMemberId: "m1",
            lastUsedAt: null,
          },
        ],
        collections: ["scifact"],
        form: { key: "key_1", query: `${evil} query`, collections: "scifact", filters: `</textarea>${evil}` },
        result: {
          queryId: "q1",
          keyId: "key_1",
          rows,
          unlocked: new Set(),
          asked: { query: "x", collections: ["scifact"] },
          warnings: [`no document of scifact has journal "${evil}"`],
        },
        quote: { selected: ["r<1>"], quote: { toBuy: ["r<1>"], alreadyUnlocked: [], costMicros: 1500n } },
      },
    ).text;
    expect(page).not.toContain("<img");
    expect(page).not.toContain("</textarea><img");
    expect(page).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; title");
    expect(page).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; journal");
    // a filter warning is shown above the rows, escaped (it quotes what the member typed)
    expect(page).toContain(
      "no document of scifact has journal &quot;&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&quot;",
    );
    expect(page).toContain('value="r&lt;1&gt;"');
    expect(page).toContain("Confirm and pay 0.001500 credits");
    expect(page).toContain("retracted");
    expect(page).toContain('name="_csrf" value="tok"');
    // a title opens its work page as the preview's key; the limit typed rides along to the confirm page
    expect(page).toContain('href="/dashboard/works?key=key_1&amp;id=r%3C1%3E"');
  });

  it("carries the preview form's limit, sort and minimum relevance through the unlock forms", () => {
    const page = playgroundPage(viewer, {
      keys: [keyRow()],
      collections: ["scifact"],
      form: { key: "key_1", query: "q", collections: "scifact", limit: "5", sort: "cited_by_count" },
      result: {
        queryId: "q1",
        keyId: "key_1",
        rows: [row("a", "10")],
        unlocked: new Set(),
        asked: asked(),
        warnings: [],
      },
      quote: { selected: ["a"], quote: { toBuy: ["a"], alreadyUnlocked: [], costMicros: 10n } },
    }).text;
    expect(page).toContain('id="pg-limit" name="limit" type="number" min="1" max="30" value="5"');
    // both the confirmation and the ticking form carry it, so the page after them keeps it too
    expect(page.match(/<input type="hidden" name="limit" value="5">/g)).toHaveLength(2);
    expect(page.match(/<input type="hidden" name="sort" value="cited_by_count">/g)).toHaveLength(2);
  });
});

const viewer = {
  principal: { kind: "member" as const, memberId: "m1", orgId: "o1", role: "owner" as const },
  email: "a@b.example",
  orgName: "Lab",
  csrfToken: "tok",
};
const asked = () => ({ query: "x", collections: ["scifact"] });
const keyRow = (over: Partial<KeyRow> = {}): KeyRow => ({
  id: "key_1",
  prefix: "sk_live_ab",
  name: "key",
  mode: "live",
  collections: null,
  spentMicros: 0n,
  spendingCapMicros: null,
  revoked: false,
  createdAt: "2031-01-01T00:00:00Z",
  createdBy: null,
  createdByMemberId: "m1",
  lastUsedAt: null,
  ...over,
});
const EVIL = '"><script>alert(1)</script><img src=x onerror="alert(2)">';

describe("a recent query's page", () => {
  const opened = (over: Partial<OpenedQuery> = {}): OpenedQuery => ({
    queryId: "q1",
    keyId: "key_1",
    kind: "preview",
    rows: [row("a", "10", { title: `${EVIL} title`, journal: `${EVIL} journal` }), row("b", "20")],
    unlocked: new Set(["b"]),
    asked: { query: `${EVIL} query`, collections: ["scifact"] },
    warnings: [],
    mayUnlock: true,
    ...over,
  });

  it("shows rows owned or locked, escaped, with ticks posting to the query's own unlock", () => {
    const page = queryRowsPage(viewer, { opened: opened(), keys: [keyRow({ name: `${EVIL} key` })] }).text;
    expect(page).not.toMatch(/<script>|<img/);
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page).toContain('action="/dashboard/queries/q1/unlock"');
    expect(page).toContain('<tr data-result-id="a" class="locked">');
    expect(page).toMatch(/<tr data-result-id="b" class="unlocked">[\s\S]*?owned<\/td>/);
    expect(page).toContain("/dashboard/queries/q1/export?format=ris");
  });

  it("a preview whose key the member may not use, and a search: rows without ticks or an unlock button", () => {
    for (const q of [opened({ mayUnlock: false }), opened({ kind: "search", mayUnlock: false })]) {
      const page = queryRowsPage(viewer, { opened: q, keys: [] }).text;
      expect(page).not.toContain('type="checkbox"');
      expect(page).not.toContain("Unlock selected");
    }
  });

  it("the list keeps the filter as typed, escaped, and each kept query opens to its rows", () => {
    const now = new Date("2031-05-06T10:00:00Z");
    const recent: RecentQuery = {
      queryId: "q<1>",
      kind: "preview",
      queryText: EVIL,
      endpoint: "/api/v1/search/preview",
      resultCount: 3,
      collections: ["scifact"],
      costMicros: 0n,
      tokens: 0,
      time: "2031-05-06T09:00:00.000Z",
      keyId: "key_1",
      keyPrefix: "sk_live_ab",
      keyName: EVIL,
      cachedUntil: "2031-05-13T09:00:00.000Z",
    };
    const page = queriesPage(viewer, {
      queries: [recent],
      baseUrl: "https://api.example",
      now,
      keys: [keyRow({ name: EVIL })],
      form: { collection: EVIL, from: "2031-13-01" },
      filtered: true,
      error: "from: write a day as YYYY-MM-DD",
    }).text;
    expect(page).not.toMatch(/<script>|<img/);
    expect(page).toContain('href="/dashboard/queries/q%3C1%3E"');
    expect(page).toContain('id="qf-from" name="from" value="2031-13-01"');
    expect(page).toContain("from: write a day as YYYY-MM-DD");
  });
});

describe("a work's page", () => {
  it("shows every field escaped, links held references to their pages and unheld ones out", () => {
    const work = {
      title: `${EVIL} title`,
      authors: [`${EVIL} author`],
      journal: `${EVIL} journal`,
      publication_date: "2019-01-02",
      ids: { doi: "10.1/a", pmid: null, pmcid: null, openalex: null, docId: "d1" },
      integrity: { status: "retracted", notices: [] },
      collections: ["scifact"],
    } as unknown as Work;
    const page = workPage(viewer, {
      keyId: "key_1",
      work,
      references: {
        work: { ids: work.ids },
        items: [
          { held: true, ...work, ids: { ...work.ids, doi: "10.1/b" } },
          { held: false, ids: { doi: "10.1/c", pmid: null, openalex: null }, url: "https://doi.org/10.1/c" },
        ],
        nextCursor: null,
        coverage: { recorded: 2, held: 1, note: `${EVIL} note` },
      },
      citedBy: { work: { ids: work.ids }, items: [], nextCursor: null, coverage: { recorded: 0, held: 0, note: "" } },
    }).text;
    expect(page).not.toMatch(/<script>|<img/);
    expect(page).toContain(
      "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt; author",
    );
    expect(page).toContain('href="/dashboard/works?key=key_1&amp;id=10.1%2Fb"');
    expect(page).toContain('href="https://doi.org/10.1/c"');
    expect(page).toContain("/dashboard/works/export?key=key_1&amp;id=10.1%2Fa&amp;format=bibtex");
    expect(page).toContain("retracted");
  });

  it("says whether search can return the work, and whether the retraction lists could check it", () => {
    const base = {
      title: "A record",
      authors: [],
      journal: null,
      publication_date: null,
      ids: { doi: null, pmid: null, pmcid: null, openalex: "W1", docId: "W1" },
      collections: ["openalex-synergy"],
    };
    const page = (work: object) =>
      workPage(viewer, {
        keyId: "key_1",
        work: work as unknown as Work,
        references: {
          work: { ids: base.ids },
          items: [],
          nextCursor: null,
          coverage: { recorded: 0, held: 0, note: "" },
        },
        citedBy: { work: { ids: base.ids }, items: [], nextCursor: null, coverage: { recorded: 0, held: 0, note: "" } },
      }).text;
    const recordOnly = page({
      ...base,
      searchable: false,
      integrity: { status: "none", notices: [], listsChecked: false },
    });
    expect(recordOnly).toContain('<dd id="work-searchable">no: held as a record only');
    expect(recordOnly).toContain('<dd id="work-integrity">not checked (no DOI)</dd>');
    const searchable = page({
      ...base,
      searchable: true,
      integrity: { status: "none", notices: [], listsChecked: true },
    });
    expect(searchable).toContain('<dd id="work-searchable">yes</dd>');
    expect(searchable).toContain('<dd id="work-integrity">no notice</dd>');
  });
});
