// GET /authors?name= reads work_author_words by the longest word's prefix as a range in byte ("C") order: the end of
// that range is the prefix with its last code point raised by one, whatever plane it is in.
import { describe, expect, it } from "vitest";
import { prefixEnd } from "../../src/usecases/authors/authorsReads.js";

describe("a name word's prefix range", () => {
  it("ends after every word starting with the prefix, before any other", () => {
    expect(prefixEnd("kir")).toBe("kis");
    expect(prefixEnd("z")).toBe("{");
    expect(prefixEnd("a𝔐")).toBe("a𝔑");
    const words = ["kir", "kirsch", "kirschbaum", "kirz", "kis", "kiq", "ki"];
    const inRange = words.filter((w) => w >= "kir" && w < prefixEnd("kir"));
    expect(inRange).toEqual(words.filter((w) => w.startsWith("kir")));
  });
});
