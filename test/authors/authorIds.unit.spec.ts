// The author rules: id spellings (OpenAlex, ORCID), ORCID check digits, name folding, positions and filter keys.
import { describe, expect, it } from "vitest";
import {
  authorKeys,
  authorshipsInOrder,
  foldName,
  normalizeOrcid,
  openAlexAuthorId,
  parseAuthorId,
} from "../../src/domain/authors.js";

describe("ORCID normalisation", () => {
  it.each([
    "0000-0002-1825-0097",
    "0000000218250097",
    "https://orcid.org/0000-0002-1825-0097",
    "http://orcid.org/0000-0002-1825-0097",
    "orcid.org/0000-0002-1825-0097/",
    "ORCID: 0000-0002-1825-0097",
    " https://www.orcid.org/0000-0002-1825-0097 ",
  ])("reads %s", (raw) => expect(normalizeOrcid(raw)).toBe("0000-0002-1825-0097"));

  it("takes a lowercase x check digit", () => {
    expect(normalizeOrcid("0000-0002-1694-233x")).toBe("0000-0002-1694-233X");
  });

  it.each(["0000-0002-1825-0098", "0000-0002-1825", "12345", "", "A5023888391", "0000-0002-1825-0097\u0000"])(
    "refuses %j",
    (raw) => expect(normalizeOrcid(raw)).toBeNull(),
  );
});

describe("author ids", () => {
  it.each([
    "A5023888391",
    "a5023888391",
    "https://openalex.org/A5023888391",
    "https://openalex.org/authors/A5023888391",
    "https:/openalex.org/A5023888391",
  ])("reads the OpenAlex id %s", (raw) =>
    expect(parseAuthorId(raw)).toEqual({ ok: true, id: { kind: "openalex", value: "A5023888391" } }),
  );

  it("reads an ORCID", () => {
    expect(parseAuthorId("https://orcid.org/0000-0002-1825-0097")).toEqual({
      ok: true,
      id: { kind: "orcid", value: "0000-0002-1825-0097" },
    });
  });

  it("names the fix for a malformed id and for a wrong check digit", () => {
    const bad = parseAuthorId("W2741809807");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.reason).toMatch(/not an author id.*OpenAlex author id.*ORCID/);
    const sum = parseAuthorId("0000-0002-1825-0098");
    if (!sum.ok) expect(sum.reason).toMatch(/check digit/);
    const nul = parseAuthorId("A12\u0000");
    if (!nul.ok) expect(nul.reason).toContain("\\u0000");
    // a name where the id goes: the search by name is named, the name in it encoded
    const named = parseAuthorId("Clemens Kirschbaum");
    if (!named.ok) expect(named.reason).toContain("GET /api/v1/authors?name=Clemens%20Kirschbaum");
    expect(named.ok).toBe(false);
    if (!bad.ok) expect(bad.reason).not.toContain("?name=");
  });

  it("is not a work id or a name", () => {
    expect(openAlexAuthorId("W2741809807")).toBeNull();
    expect(openAlexAuthorId("Anthony Bateman")).toBeNull();
    expect(openAlexAuthorId("A0")).toBeNull();
  });
});

describe("name folding", () => {
  it("folds accents, case and punctuation", () => {
    expect(foldName("Müller-Lüdenscheidt, J.")).toBe("muller ludenscheidt j");
    expect(foldName("  JOSÉ   García ")).toBe("jose garcia");
    expect(foldName("Søren Łukasz Straße")).toBe("soren lukasz strasse");
  });
});

describe("authorships from an order, and the filter's keys", () => {
  it("gives positions from the order and keeps only valid ORCIDs", () => {
    const a = authorshipsInOrder([
      { name: "A One", orcid: "http://orcid.org/0000-0001-9921-6968" },
      { name: "B Two", orcid: "not-an-orcid" },
      { name: "C Three" },
    ]);
    expect(a.map((x) => x.position)).toEqual(["first", "middle", "last"]);
    expect(a.map((x) => x.orcid)).toEqual(["0000-0001-9921-6968", null, null]);
    expect(a.every((x) => x.id === null)).toBe(true);
    expect(authorshipsInOrder([{ name: "Solo" }])[0]!.position).toBe("first");
  });

  it("keys are ids and ORCIDs, never names", () => {
    expect(
      authorKeys([
        { name: "X", id: "A1", orcid: "0000-0002-1825-0097", position: "first" },
        { name: "Y", id: null, orcid: null, position: "last" },
        { name: "X again", id: "A1", orcid: null, position: "middle" },
      ]),
    ).toEqual(["A1", "0000-0002-1825-0097"]);
  });
});
