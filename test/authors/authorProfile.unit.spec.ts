// Who an author is among stored authorships: the identity an id or ORCID opens (one step, never by name), the
// co-authors counted once per work, and the people a name search groups.
import { describe, expect, it } from "vitest";
import { coAuthorsOf, identityOf, isOwn, peopleOf } from "../../src/usecases/authors/authorProfile.js";
import type { AuthorshipRow } from "../../src/usecases/authors/authorsReads.js";

const row = (docId: string, position: number, name: string, authorId: string | null, orcid: string | null) =>
  ({ indexKey: "i", docId, position, name, authorId, orcid }) satisfies AuthorshipRow;

const ORCID = "0000-0003-3707-4444";
const rows = [
  row("w1", 0, "Clemens Kirschbaum", "A1", ORCID),
  row("w1", 1, "Tobias Stalder", "A2", null),
  row("w2", 0, "Clemens Kirschbaum", "A9", null), // another id of the same name: another person
  row("w2", 1, "Tobias Stalder", "A2", null),
  row("p3", 0, "C Kirschbaum", null, ORCID), // MEDLINE: tied by the ORCID
  row("p3", 1, "J Smith", null, null),
  row("p4", 0, "J Smith", null, null),
];

describe("an author's identity", () => {
  it("an OpenAlex id adds the ORCIDs its authorships carry, and those tie name-only authorships to it", () => {
    const identity = identityOf({ kind: "openalex", value: "A1" }, rows);
    expect([...identity.ids]).toEqual(["A1"]);
    expect([...identity.orcids]).toEqual([ORCID]);
    expect(rows.filter((r) => isOwn(r, identity)).map((r) => r.docId)).toEqual(["w1", "p3"]);
  });

  it("an ORCID adds the OpenAlex ids carrying it, never the other id of the same name", () => {
    const identity = identityOf({ kind: "orcid", value: ORCID }, rows);
    expect([...identity.ids]).toEqual(["A1"]);
    expect(isOwn(row("w2", 0, "Clemens Kirschbaum", "A9", null), identity)).toBe(false);
  });

  it("co-authors are counted once per work, identified ones by id, name-only ones by their exact name", () => {
    const identity = identityOf({ kind: "openalex", value: "A1" }, rows);
    const mine = rows.filter((r) => ["w1", "p3"].includes(r.docId));
    const twice = [...mine, row("w1", 2, "Tobias Stalder", "A2", null)];
    expect(coAuthorsOf(twice, identity, (r) => r.docId, 10)).toEqual([
      { name: "J Smith", id: null, orcid: null, works: 1 },
      { name: "Tobias Stalder", id: "A2", orcid: null, works: 1 },
    ]);
  });
});

describe("people a name search finds", () => {
  it("groups by OpenAlex id, joins an ORCID-only authorship to the id carrying it, leaves name-only ones out", () => {
    const people = peopleOf(rows.filter((r) => r.name.includes("Kirschbaum") && (r.authorId || r.orcid)));
    expect(people.map((p) => [p.id, p.rows.length, p.ids.orcid])).toEqual([
      ["A1", 2, ORCID],
      ["A9", 1, null],
    ]);
  });

  it("an ORCID no id carries is a person of its own", () => {
    const people = peopleOf([row("p5", 0, "Ann Lee", null, "0000-0002-1825-0097")]);
    expect(people).toEqual([
      expect.objectContaining({ id: "0000-0002-1825-0097", ids: { openalex: null, orcid: "0000-0002-1825-0097" } }),
    ]);
  });
});
