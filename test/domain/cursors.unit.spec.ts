// One cursor scheme for every list: a token opaque to clients that only its own spelling decodes, refused with the
// list's own message (and changing nothing) when it was altered, re-encoded, or belongs to another list or owner.
import { describe, expect, it } from "vitest";
import { cursorOf, listCursorOf, offsetOfCursor, queryIdOfCursor } from "../../src/domain/cursors.js";
import { Rejection } from "../../src/domain/rejection.js";

const QUERY_ID = "0b5e7a1c-3f2d-4e8a-9c61-2d4f5a6b7c8d";

function refusal(fn: () => unknown): [string, string, unknown] {
  try {
    fn();
  } catch (err) {
    if (err instanceof Rejection) return [err.code, err.message, err.details];
    throw err;
  }
  throw new Error("not refused");
}

describe("a search's cursor", () => {
  it("names its query record opaquely and reads it back", () => {
    const cursor = cursorOf(QUERY_ID);
    expect(cursor.startsWith("c1.")).toBe(true);
    expect(cursor).not.toContain(QUERY_ID);
    expect(queryIdOfCursor(cursor)).toBe(QUERY_ID);
  });

  it("refuses a token altered, re-encoded, of another list, or naming no query record", () => {
    const cursor = cursorOf(QUERY_ID);
    const forged = [
      cursor + "A",
      cursor.replace("c1.", "c2."),
      cursor.slice(0, -1),
      `${cursor}=`,
      `c1.${Buffer.from("not-a-query-id").toString("base64url")}`,
      listCursorOf({ list: "references", work: "W1", offset: 20 }),
      "",
    ];
    for (const raw of forged) {
      const [code, message, details] = refusal(() => queryIdOfCursor(raw));
      expect([code, details]).toEqual(["VALIDATION_ERROR", { field: "cursor" }]);
      expect(message).toMatch(
        /^cursor: not a cursor this organization was given .*drop cursor to start the list again$/,
      );
    }
  });
});

describe("an offset list's cursor", () => {
  it("continues from its offset, for its own list and owner only", () => {
    const cursor = listCursorOf({ list: "author-works", work: "A5023888391", offset: 40 });
    expect(offsetOfCursor(cursor, "author-works", "A5023888391")).toBe(40);
    expect(offsetOfCursor(undefined, "authors", "smith")).toBe(0);
    expect(offsetOfCursor("", "authors", "smith")).toBe(0);
  });

  it("refuses another list's, another owner's, a search's, a negative or altered one, naming the fix", () => {
    const cursor = listCursorOf({ list: "references", work: "W1", offset: 20 });
    const padded = Buffer.from(JSON.stringify(["references", "W1", 20])).toString("base64") + "==";
    const cases: [string, "references" | "cited-by" | "authors", string, string][] = [
      [cursor, "cited-by", "W1", "cursor is not one this cited-by list issued for this work"],
      [cursor, "references", "W2", "cursor is not one this references list issued for this work"],
      [cursorOf(QUERY_ID), "references", "W1", "cursor is not one this references list issued for this work"],
      [listCursorOf({ list: "authors", work: "smith", offset: -5 }), "authors", "smith", "this authors list"],
      [cursor.slice(0, -2), "references", "W1", "this references list"],
      [padded, "references", "W1", "this references list"],
      [Buffer.from('["references","W1",1.5]').toString("base64url"), "references", "W1", "this references list"],
      [
        listCursorOf({ list: "references", work: "W1", offset: 1, after: ["2020", "W2", "k", "d"] }),
        "references",
        "W1",
        "this references list",
      ],
      [
        listCursorOf({ list: "cited-by", work: "W1", offset: 1, after: ["2020", "W\u00002", "k", "d"] }),
        "cited-by",
        "W1",
        "this cited-by list",
      ],
    ];
    for (const [raw, list, owner, words] of cases) {
      const [code, message, details] = refusal(() => offsetOfCursor(raw, list, owner));
      expect([code, details]).toEqual(["VALIDATION_ERROR", { field: "cursor" }]);
      expect(message).toContain(words);
      expect(message).toMatch(/send the nextCursor of its previous page, or none for the first page$/);
    }
  });
});
