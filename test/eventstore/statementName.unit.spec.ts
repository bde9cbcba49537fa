// Prepared statements are named by their text: the name is remembered by text, and stays what hashing gives.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { statementName } from "../../src/eventstore/db.js";

const hashed = (sql: string) => `ls_${createHash("sha1").update(sql).digest("hex").slice(0, 24)}`;

describe("statementName", () => {
  it("names equal texts alike and different texts apart, as the text's hash does", () => {
    const a = "SELECT $1::int AS a";
    const b = "SELECT $1::int AS b";
    expect(statementName(a)).toBe(hashed(a));
    expect(statementName(`SELECT $1::int AS ${"a"}`)).toBe(statementName(a));
    expect(statementName(b)).toBe(hashed(b));
    expect(statementName(b)).not.toBe(statementName(a));
  });

  it("still names every text by its hash once more texts than it remembers went through", () => {
    const texts = Array.from({ length: 1_500 }, (_, i) => `SELECT ${i}`);
    for (const text of texts) statementName(text);
    for (const text of [texts[0]!, texts[700]!, texts[1_499]!]) expect(statementName(text)).toBe(hashed(text));
  });
});
