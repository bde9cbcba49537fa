// The playground's rules: who may use which key, the form as preview fields, the ticked rows, the quote, a row shown.
import { describe, expect, it } from "vitest";
import {
  mayUseKey,
  playgroundRowOf,
  previewFieldsOfForm,
  reachableCollections,
  selectedRowIds,
  unlockQuote,
} from "../../src/usecases/playground/playgroundRules.js";
import { Rejection } from "../../src/domain/rejection.js";
import type { CachedRow } from "../../src/domain/resultRow.js";
import { playgroundPage } from "../../src/http/dashboard/playgroundPage.js";

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

  it("shows a row as a customer reads it: title, journal, year, integrity, cost; text only once unlocked", () => {
    const r = row("a", "1234", {
      title: "<script>alert(1)</script>",
      journal: "Bone",
      publication_date: "2019-04-02",
      integrity: { status: "retracted", notices: [] },
    });
    expect(playgroundRowOf(r, false)).toEqual({
      id: "a",
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
      integrity: "none",
    });
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
        },
        quote: { selected: ["r<1>"], quote: { toBuy: ["r<1>"], alreadyUnlocked: [], costMicros: 1500n } },
      },
    ).text;
    expect(page).not.toContain("<img");
    expect(page).not.toContain("</textarea><img");
    expect(page).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; title");
    expect(page).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; journal");
    expect(page).toContain('value="r&lt;1&gt;"');
    expect(page).toContain("Confirm and pay 0.001500 credits");
    expect(page).toContain("retracted");
    expect(page).toContain('name="_csrf" value="tok"');
  });
});
