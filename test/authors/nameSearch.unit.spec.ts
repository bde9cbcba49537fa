// GET /authors?name= reads work_author_words by the longest word's prefix as a range in byte ("C") order: the end of
// that range is the prefix with its last code point raised by one, whatever plane it is in.
import { describe, expect, it } from "vitest";
import { prefixEnd } from "../../src/usecases/authors/authorsReads.js";
import { authorSearchQuery } from "../../src/wire/schemas.js";

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

describe("a name search's query string", () => {
  it("tells a request without one name, or with several, to send one", () => {
    for (const query of [{}, { name: ["kirschbaum", "stalder"] }, { name: " " }]) {
      const refused = authorSearchQuery.safeParse(query);
      expect(refused.success).toBe(false);
      expect(refused.error!.issues[0]!.message, JSON.stringify(query)).toMatch(/^name is required, once: /);
    }
    expect(authorSearchQuery.parse({ name: "kirschbaum" })).toEqual({ name: "kirschbaum", limit: 20 });
  });
});
