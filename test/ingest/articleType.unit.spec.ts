// A journal article's type read from its title (OpenAlex, and MEDLINE records listed only as "Journal Article"): the
// cues that make it a correction, a case report, a commentary or a review, and the titles that only look like one.
import { describe, expect, it } from "vitest";
import { articleTypeFromOpenAlex, articleTypeFromPubMed } from "../../src/ingest/articleType.js";

const fromTitle = (title: string) => articleTypeFromOpenAlex("journal-article", title, false);

describe("articleTypeFromOpenAlex", () => {
  it.each([
    ["Comment on: Vitamin D and fractures", "commentary"],
    ["Comments to the editor about statins", "commentary"],
    ["Comment: the trial that was not", "commentary"],
    ["Commentary on the HAVEN 3 trial", "commentary"],
    ["Reply to Smith et al.", "commentary"],
    ["Response to the letter by Jones", "commentary"],
    ["Erratum: Aspirin in older adults", "correction"],
    ["Correction to: Aspirin in older adults", "correction"],
    ["Correction", "correction"],
    ["Corrigendum to \u201cAssessing Decentering\u201d", "correction"],
    ["Takayasu arteritis in a child: a case report", "case-report"],
    ["Statins and diabetes: a systematic review and meta-analysis", "review"],
    ["Protocol for a randomised trial of exercise", "protocol"],
  ])("reads %j as %s", (title, type) => {
    expect(fromTitle(title)).toBe(type);
  });

  it.each([
    // French: "how to treat", "how to assess"
    "Comment traiter l'hypertension artérielle du sujet âgé ?",
    "Comment évaluer la douleur chez l'enfant",
    "Commentaries aside, a randomized trial of metformin",
    "Replying bacteria: a misnomer study",
    // a study of correcting something is no correction notice
    "Correction of low levels of astigmatism.",
    "Correction of a skeletal Class II malocclusion by a rapid maxillary expander",
  ])("keeps %j a research article", (title) => {
    expect(fromTitle(title)).toBe("research-article");
  });

  it("reads a MEDLINE journal article still being indexed by its title, and a typed one by its types", () => {
    expect(articleTypeFromPubMed(["Journal Article"], "Paternal age and outcomes: a systematic review.")).toBe(
      "review",
    );
    expect(articleTypeFromPubMed(["Journal Article"], "Cardiac leiomyosarcoma - a case report.")).toBe("case-report");
    expect(articleTypeFromPubMed(["Journal Article"], "Correction of low levels of astigmatism.")).toBe(
      "research-article",
    );
    expect(articleTypeFromPubMed(["Journal Article"])).toBe("research-article");
    expect(articleTypeFromPubMed(["Randomized Controlled Trial"], "A review of trials: a trial")).toBe(
      "research-article",
    );
    expect(articleTypeFromPubMed(["Case Reports", "Journal Article"], "A review.")).toBe("case-report");
    expect(articleTypeFromPubMed(["News"], "A systematic review")).toBe("other");
  });

  it("takes an explicit OpenAlex type over the title, and paratext as other", () => {
    expect(articleTypeFromOpenAlex("review", "Comment on the trial", false)).toBe("review");
    expect(articleTypeFromOpenAlex("journal-article", "Comment on the trial", true)).toBe("other");
  });
});
