// Teasers: the opening words of a chunk, whitespace collapsed, cut at a word boundary, whatever the text's length.
import { describe, expect, it } from "vitest";
import { teaserOf } from "../../src/usecases/search/queryCache.js";

describe("teaserOf", () => {
  it("cuts a long text at the last whole word within the limit", () => {
    const text = `${"word ".repeat(100)}end`;
    expect(teaserOf(text, 12)).toBe("word word...");
    expect(teaserOf(text)).toBe(`${"word ".repeat(31)}word...`);
  });

  it("collapses whitespace runs and trims, however much whitespace the opening holds", () => {
    const spaced = `  \n\t alpha\u00a0\u00a0beta   gamma${" ".repeat(500)}delta epsilon ${"zeta ".repeat(50)}`;
    expect(teaserOf(spaced, 20)).toBe("alpha beta gamma...");
    expect(teaserOf(spaced, 30)).toBe("alpha beta gamma delta...");
  });

  it("shows half of a text that fits, and all of a very short one", () => {
    expect(teaserOf("one two three four five six seven eight nine ten eleven")).toBe("one two three four five...");
    expect(teaserOf("  short \n text ")).toBe("short text...");
  });
});
