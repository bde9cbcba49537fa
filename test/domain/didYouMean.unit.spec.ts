// The one "did you mean" of every error that names a fix: which candidate is near enough to suggest, and when none is.
import { describe, expect, it } from "vitest";
import { didYouMean } from "../../src/domain/didYouMean.js";

/** The name the message suggests, or undefined when it suggests none. */
const nearestName = (...args: Parameters<typeof didYouMean>) =>
  /^ Did you mean "(.*)"\?$/.exec(didYouMean(...args))?.[1];

const COLLECTIONS = ["openalex-synergy", "openalex-open-access", "scifact", "clinical-digest", "biomedical"];

describe("nearestName", () => {
  it("finds a plural, a transposition, a case or separator change, and a unique prefix", () => {
    expect(nearestName("scifacts", COLLECTIONS)).toBe("scifact");
    expect(nearestName("sicfact", COLLECTIONS)).toBe("scifact");
    expect(nearestName("Clinical_Digest", COLLECTIONS)).toBe("clinical-digest");
    expect(nearestName("biomed", COLLECTIONS)).toBe("biomedical");
    expect(nearestName("openalex-synergie", COLLECTIONS)).toBe("openalex-synergy");
  });

  it("suggests nothing far away, nothing ambiguous by prefix, and never the name itself", () => {
    expect(nearestName("pubmed", COLLECTIONS)).toBeUndefined();
    expect(nearestName("openalex", COLLECTIONS)).toBeUndefined();
    expect(nearestName("scifact", ["scifact"])).toBeUndefined();
    expect(nearestName("", COLLECTIONS)).toBeUndefined();
  });

  it("takes the aliases the caller knows, only when they name a candidate", () => {
    expect(nearestName("Year", ["publication_date", "journal"], { year: "publication_date" })).toBe("publication_date");
    expect(nearestName("year", ["journal"], { year: "publication_date" })).toBeUndefined();
  });

  it("suggests nothing for a name megabytes long, never comparing it letter by letter (requests send them)", () => {
    // the edit distance of 4 MB against every candidate blocked the event loop for about a minute
    expect(nearestName(`${"scifact".repeat(600_000)}`, COLLECTIONS)).toBeUndefined();
    expect(nearestName(`scifact${"x".repeat(300)}`, ["scifact"])).toBeUndefined();
  });

  it("renders the end of a message", () => {
    expect(didYouMean("scifacts", COLLECTIONS)).toBe(' Did you mean "scifact"?');
    expect(didYouMean("pubmed", COLLECTIONS)).toBe("");
  });
});
