// OpenAlex abstracts rebuilt from the inverted index keep their sentence and section boundaries; the cases are
// word runs taken from the SYNERGY works in demo-data (the OpenAlex id of each in its name).
import { describe, expect, it } from "vitest";
import { abstractFromInvertedIndex } from "../../src/ingest/openAlexReader.js";
import { restoreGluedBoundaries, splitSentences } from "../../src/ingest/sentences.js";

/** The inverted index OpenAlex would hold for a text split on spaces. */
function invertedIndexOf(text: string): Record<string, number[]> {
  const index: Record<string, number[]> = {};
  text.split(" ").forEach((word, position) => (index[word] ??= []).push(position));
  return index;
}

const rebuilt = (text: string) => abstractFromInvertedIndex(invertedIndexOf(text));

describe("abstracts rebuilt from an inverted index", () => {
  it("puts back the space between sentences run together at a line break (W2066722345)", () => {
    const text = rebuilt(
      "effect of harvesting grafts on knee function remains unclear.To clarify the functional effects",
    );
    expect(text).toBe(
      "effect of harvesting grafts on knee function remains unclear. To clarify the functional effects",
    );
    expect(splitSentences(text)).toEqual([
      "effect of harvesting grafts on knee function remains unclear.",
      "To clarify the functional effects",
    ]);
  });

  it("separates a section heading carried as escaped markup from the text after it", () => {
    expect(rebuilt("were included.&lt;b&gt;&lt;i&gt;Results:&lt;/i&gt;&lt;/b&gt;Switching was well tolerated.")).toBe(
      "were included. Results: Switching was well tolerated.",
    );
  });

  it("keeps closing brackets, decimals and p-values with their sentence", () => {
    expect(rebuilt("group (p<0.05).The scores rose 2.5 points at p<0.05.Patients were")).toBe(
      "group (p<0.05). The scores rose 2.5 points at p<0.05. Patients were",
    );
    expect(rebuilt("pooled (I2=0%).Smoking and 15.4%.Acute events")).toBe(
      "pooled (I2=0%). Smoking and 15.4%. Acute events",
    );
  });

  it("breaks after an acronym that ends a sentence (BPD.The) and after a question (W2317266713)", () => {
    expect(rebuilt("patients with BPD.The trial")).toBe("patients with BPD. The trial");
    expect(rebuilt("all four compartments in contact?The purpose is")).toBe(
      "all four compartments in contact? The purpose is",
    );
  });

  it("does not break at abbreviations, initials and dotted names", () => {
    for (const text of [
      "approved by the U.S. Food and Drug Administration", // W2189649144, already spaced
      "in the U.S.Food and Drug Administration",
      "stimuli, e.g.Awareness of a person",
      "compared vs.Placebo in",
      "Smith et al.The",
      "Dr.Smith treated",
      "group A.Department of",
      "registered at ClinicalTrials.gov (NCT01234567)",
      "see www.ClinicalTrialsRegister.eu for",
      "at https://osf.io/Abc.Def today",
      "an IL-6:IL-10 ratio at 10:30",
    ]) {
      expect(rebuilt(text)).toBe(text);
    }
  });

  it("spaces a label's colon glued to a name (conflict-of-interest lines, W2582019511)", () => {
    expect(rebuilt("committees. Kitazawa:Chugai Pharmaceutical Co., Ltd: Employment")).toBe(
      "committees. Kitazawa: Chugai Pharmaceutical Co., Ltd: Employment",
    );
  });

  it("changes nothing in text that kept its spaces", () => {
    const text = "Background: The cause is unclear. Methods: We randomised 84 women (p = 0.03).";
    expect(restoreGluedBoundaries(text)).toBe(text);
  });
});
