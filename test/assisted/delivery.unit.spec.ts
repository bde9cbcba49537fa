// What an assisted search delivers: best first by the judge (or the priority the judge set), one chunk per document,
// a work held by two collections (the same DOI), or two works holding the same passage, delivered and charged once.
import { describe, expect, it } from "vitest";
import { deliverable, distinctDocuments } from "../../workflows/deliverableRows.js";
import type { VerifiedRow } from "../../workflows/assistedTypes.js";

function verified(
  id: string,
  physical: string,
  docId: string,
  judgeScore: number,
  doi?: string,
  priority?: number,
  text = "t",
): VerifiedRow {
  return {
    candidate: {
      row: {
        id,
        collection: physical,
        physical,
        text,
        teaser: text.slice(0, 20),
        metadata: { chunk_index: 0, doc_id: docId, ...(doi ? { doi } : {}) },
        relevance: 0.5,
        tokens: 10,
        costMicros: "10",
        pricePer1000Micros: "1000",
        figureCount: 0,
      },
      subQuestion: "q",
      rank: 0,
    },
    verdict: {
      id,
      judgeScore,
      matchedTerms: [],
      rationale: "r",
      verified: true,
      answeredBy: "builtin",
      ...(priority === undefined ? {} : { priority }),
    },
  } as VerifiedRow;
}

describe("delivery", () => {
  it("delivers one chunk per document, best first, at most the limit", () => {
    const rows = [
      verified("a1", "c", "A", 0.6),
      verified("a2", "c", "A", 0.9),
      verified("b1", "c", "B", 0.7),
      verified("c1", "c", "C", 0.5),
    ];
    expect(deliverable(rows, 10).map((r) => r.candidate.row.id)).toEqual(["a2", "b1", "c1"]);
    expect(deliverable(rows, 2).map((r) => r.candidate.row.id)).toEqual(["a2", "b1"]);
    expect(distinctDocuments(rows)).toBe(3);
  });

  it("chooses by the verdicts' priority (literature), then delivers the chosen in the judge's order", () => {
    const rows = [
      verified("a", "c", "A", 0.9, undefined, 0.3),
      verified("b", "c", "B", 0.2, undefined, 0.8),
      verified("c", "c", "C", 0.5, undefined, 0.3),
      verified("d", "c", "D", 0.95, undefined, 0.1),
    ];
    expect(deliverable(rows, 1).map((r) => r.candidate.row.id)).toEqual(["b"]);
    expect(deliverable(rows, 2).map((r) => r.candidate.row.id)).toEqual(["a", "b"]);
    expect(deliverable(rows, 3).map((r) => r.candidate.row.id)).toEqual(["a", "c", "b"]);
    expect(deliverable(rows, 10).map((r) => r.candidate.row.id)).toEqual(["d", "a", "c", "b"]);
  });

  it("counts a work in two collections once (by DOI, any case); a doc id in two without a DOI is two works", () => {
    const rows = [
      verified("x-open", "openalex-open-access", "W1", 0.8, "10.1001/JAMA.288.3.334"),
      verified("x-syn", "openalex-synergy", "W1", 0.7, "10.1001/jama.288.3.334"),
      verified("y-open", "openalex-open-access", "W2", 0.6),
      verified("y-syn", "openalex-synergy", "W2", 0.5),
    ];
    expect(deliverable(rows, 10).map((r) => r.candidate.row.id)).toEqual(["x-open", "y-open", "y-syn"]);
    expect(distinctDocuments(rows)).toBe(3);
  });

  it("sells a passage two works hold once (an abstract under two DOIs), whatever its case and punctuation", () => {
    const abstract =
      "Biosimilars offer savings to health systems under pressure, and oncology is where the pressure on budgets is " +
      "largest; the economic case for their use in cancer medicine is reviewed.";
    const short = "Savings from biosimilars.";
    const rows = [
      verified("first-doi", "openalex-synergy", "W1", 0.9, "10.1007/s10269-011-2017-9", undefined, abstract),
      verified(
        "second-doi",
        "openalex-synergy",
        "W2",
        0.8,
        "10.1007/s11523-011-0196-3",
        undefined,
        abstract.toUpperCase().replace(/;/g, " ;"),
      ),
      verified("other", "openalex-synergy", "W3", 0.7, "10.1/other", undefined, `${abstract} A second finding.`),
      // a short passage recurs across works: it names no text of its own
      verified("short-1", "openalex-synergy", "W4", 0.6, undefined, undefined, short),
      verified("short-2", "openalex-synergy", "W5", 0.5, undefined, undefined, short),
    ];
    expect(deliverable(rows, 10).map((r) => r.candidate.row.id)).toEqual(["first-doi", "other", "short-1", "short-2"]);
    expect(distinctDocuments(rows)).toBe(4);
    // the other chunks of the two records: each record's row may show another chunk, and the work is still one
    const second =
      "Biosimilar introduction into the EU has already forced prices down, and savings will grow as the patents of " +
      "the antibodies expire over the coming decade.";
    const chunks = [
      verified("first-0", "openalex-synergy", "W1", 0.9, "10.1007/s10269-011-2017-9", undefined, abstract),
      verified("first-1", "openalex-synergy", "W1", 0.85, "10.1007/s10269-011-2017-9", undefined, second),
      verified("second-1", "openalex-synergy", "W2", 0.8, "10.1007/s11523-011-0196-3", undefined, second),
      verified("second-0", "openalex-synergy", "W2", 0.75, "10.1007/s11523-011-0196-3", undefined, abstract),
    ];
    expect(deliverable(chunks, 10).map((r) => r.candidate.row.id)).toEqual(["first-0"]);
    expect(deliverable([chunks[0]!, chunks[2]!], 10).map((r) => r.candidate.row.id)).toEqual(["first-0", "second-1"]);
    expect(distinctDocuments(chunks)).toBe(1);
    // a run begun before passages were keyed replays as it delivered: both DOIs
    expect(deliverable(rows, 10, "all").map((r) => r.candidate.row.id)).toContain("second-doi");
  });

  it("sells one study's records under one title once: a reprint whose text opens with its own preface", () => {
    const title =
      "Treating co-occurring Axis I disorders in recurrently suicidal women with borderline personality disorder: " +
      "A 2-year randomized trial of dialectical behavior therapy versus community treatment by experts.";
    const abstract =
      "This study evaluated whether dialectical behavior therapy (DBT) was more efficacious than treatment by " +
      "nonbehavioral psychotherapy experts in reducing co-occurring Axis I disorders among suicidal individuals.";
    const titled = (row: VerifiedRow, t: string, date: string): VerifiedRow => {
      Object.assign(row.candidate.row.metadata, { title: t, publication_date: date });
      return row;
    };
    const original = () =>
      titled(
        verified("original", "openalex-synergy", "W1", 0.9, "10.1037/a0014044", undefined, abstract),
        title,
        "2008-11-30",
      );
    const reprint = (date: string) =>
      titled(
        verified(
          "reprint",
          "openalex-synergy",
          "W2",
          0.8,
          "10.1037/1949-2715.s.1.35",
          undefined,
          `This reprinted article originally appeared in Journal of Consulting and Clinical Psychology. ${abstract}`,
        ),
        title.toUpperCase(),
        date,
      );
    const other = titled(
      verified("other", "openalex-synergy", "W3", 0.7, "10.1/other", undefined, "Another trial of DBT in adolescents."),
      "Dialectical behavior therapy for adolescents with repeated suicidal and self-harming behavior: a trial",
      "2014-05-01",
    );
    expect(deliverable([original(), reprint("2009-01-01"), other], 10).map((r) => r.candidate.row.id)).toEqual([
      "original",
      "other",
    ]);
    expect(distinctDocuments([original(), reprint("2009-01-01"), other])).toBe(2);
    // two works years apart under one title are two (a review of 2008 and another of 2011)
    expect(deliverable([original(), reprint("2011-06-01")], 10)).toHaveLength(2);
    // a short title names no one work: "Poster presentations" of two meetings are two
    const poster = (id: string, doc: string) =>
      titled(
        verified(id, "openalex-synergy", doc, 0.5, undefined, undefined, `${id} text`),
        "Poster Presentations",
        "2019-01-01",
      );
    expect(deliverable([poster("p1", "W8"), poster("p2", "W9")], 10)).toHaveLength(2);
    // a run begun before titles were keyed replays as it delivered: both records
    expect(deliverable([original(), reprint("2009-01-01")], 10, "passage")).toHaveLength(2);

    // the reprint scored above its original: the work is sold once, as its original, the record PubMed indexes
    const outscored = () => {
      const row = reprint("2009-01-01");
      Object.assign(row.verdict, { judgeScore: 0.95, priority: 0.95 });
      return row;
    };
    const indexed = () => {
      const row = original();
      Object.assign(row.candidate.row.metadata, { pmid: "19045974" });
      return row;
    };
    const ids = (rows: VerifiedRow[]) => rows.map((r) => r.candidate.row.id);
    expect(ids(deliverable([outscored(), indexed(), other], 10))).toEqual(["original", "other"]);
    expect(ids(deliverable([outscored(), original(), other], 1))).toEqual(["original"]);
    // a run begun before the original was preferred replays as it delivered: the best-scored record
    expect(ids(deliverable([outscored(), indexed(), other], 10, "title"))).toEqual(["reprint", "other"]);
    // one record of a work verified: it is the one sold, reprint or not
    expect(ids(deliverable([outscored(), other], 10))).toEqual(["reprint", "other"]);
  });

  it("reads which record is a work's original: not a reprint's, then one PubMed indexes", () => {
    const passage =
      "Background: we randomized 101 women with borderline personality disorder to dialectical behavior therapy " +
      "or to community treatment by experts, and followed them for two years.";
    const rec = (id: string, score: number, preface: string, pmid?: string) => {
      const row = verified(id, "openalex-synergy", id, score, `10.1/${id}`, undefined, `${preface}${passage}`);
      Object.assign(row.candidate.row.metadata, {
        title: "Dialectical behavior therapy versus community treatment by experts: a two-year randomized trial",
        publication_date: "2008",
      });
      if (pmid) Object.assign(row.candidate.row.metadata, { pmid });
      return row;
    };
    const sold = (...rows: VerifiedRow[]) => deliverable(rows, 10).map((r) => r.candidate.row.id);
    expect(
      sold(
        rec("reprint", 0.9, "This reprinted article originally appeared in J Consult Clin Psychol. "),
        rec("x", 0.5, ""),
      ),
    ).toEqual(["x"]);
    expect(sold(rec("permission", 0.9, "Reprinted with permission from Pediatrics. ", "1"), rec("x", 0.5, ""))).toEqual(
      ["x"],
    );
    // among records that are not reprints, the one PubMed indexes
    expect(sold(rec("plain", 0.9, ""), rec("indexed", 0.5, "", "19045974"))).toEqual(["indexed"]);
    // a study that speaks of reprints is not one: the best-scored record stays
    expect(
      sold(rec("speaks", 0.9, "Requests for reprints of the questionnaire were counted. "), rec("x", 0.5, "")),
    ).toEqual(["speaks"]);
  });
});
