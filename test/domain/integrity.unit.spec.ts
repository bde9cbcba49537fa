// The one retraction rule (src/domain/integrity.ts) and what each source's reader records for it: OpenAlex
// is_retracted, MEDLINE publication types and CommentsCorrections links, a JSON line's "retracted", the lists'
// sources; ingestion's exclusion and the integrity status read the same rule.
import { describe, expect, it } from "vitest";
import {
  addNotice,
  evidenceOf,
  isRetractedWork,
  NO_LISTS,
  sourceNotice,
  withdrawalsByNoticeDoi,
  workIntegrity,
  type ListsInForce,
} from "../../src/domain/integrity.js";
import { openAlexWorkToDocument } from "../../src/ingest/openAlexReader.js";
import { medlineCitationToDocument, medlineNotices, parseMedlineXml } from "../../src/ingest/medlineReader.js";
import { isRetracted } from "../../src/ingest/pipelineRules.js";
import { sourceOfFiles } from "../../src/ingest/retractionsInForce.js";

const lists = (retracted: string[], notices: Record<string, ReturnType<typeof sourceNotice>[]> = {}): ListsInForce => ({
  flagsRetracted: (doi) => retracted.includes(doi),
  noticesOf: (doi) => notices[doi] ?? [],
  noticesAt: (doi) => withdrawalsByNoticeDoi(Object.values(notices)).get(doi) ?? [],
});

const citation = (
  pmid: string,
  types: string[],
  links: string,
) => `<MedlineCitationSet><MedlineCitation Status="MEDLINE">
<PMID Version="1">${pmid}</PMID><Article><Journal><Title>J</Title></Journal><ArticleTitle>T ${pmid}</ArticleTitle>
<Abstract><AbstractText>Some text of the abstract.</AbstractText></Abstract>
<ELocationID EIdType="doi" ValidYN="Y">10.1/m${pmid}</ELocationID>
<PublicationTypeList>${types.map((t) => `<PublicationType>${t}</PublicationType>`).join("")}</PublicationTypeList>
</Article><CommentsCorrectionsList>${links}</CommentsCorrectionsList></MedlineCitation></MedlineCitationSet>`;
const link = (type: string, pmid: string) =>
  `<CommentsCorrections RefType="${type}"><RefSource>J. 2015</RefSource><PMID Version="1">${pmid}` +
  "</PMID></CommentsCorrections>";
const medline = (xml: string) => medlineCitationToDocument(parseMedlineXml(xml).citations[0]!);

describe("the retraction rule", () => {
  it("flags a work its own source retracts, or whose DOI a list flags; nothing else", () => {
    const own = [sourceNotice("retraction", "openalex")];
    expect(isRetractedWork({ doi: null, own }, NO_LISTS)).toBe(true);
    expect(isRetractedWork({ doi: "10.1/a", own: [] }, lists(["10.1/a"]))).toBe(true);
    expect(isRetractedWork({ doi: "10.1/a", own: [sourceNotice("erratum", "medline")] }, lists([]))).toBe(false);
    // a retraction notice a list records but does not flag (Crossref's retracted: false) does not retract
    const unflagged = lists([], { "10.1/a": [sourceNotice("retraction", "crossref", { doi: "10.1/n" })] });
    expect(isRetractedWork({ doi: "10.1/a", own: [] }, unflagged)).toBe(false);
    expect(workIntegrity({ doi: "10.1/a", own: [] }, unflagged).status).toBe("corrected");
  });

  it("reads a withdrawal's own record as withdrawn; a correction's or retraction's record keeps its status", () => {
    // Crossref: CD001521's withdrawal is the record 10.1002/14651858.cd001521.pub2, the review's withdrawn version
    const withdrawal = sourceNotice("withdrawal", "crossref", { doi: "10.1/review.pub2", date: "2000-01-24" });
    const inForce = lists([], {
      "10.1/review": [withdrawal],
      "10.1/a": [sourceNotice("correction", "crossref", { doi: "10.1/erratum" })],
      "10.1/b": [sourceNotice("retraction", "crossref", { doi: "10.1/notice" })],
    });
    expect(workIntegrity({ doi: "10.1/review", own: [] }, inForce)).toEqual({
      status: "withdrawn",
      notices: [withdrawal],
      listsChecked: true,
    });
    expect(workIntegrity({ doi: "10.1/review.pub2", own: [] }, inForce)).toEqual({
      status: "withdrawn",
      notices: [withdrawal],
      listsChecked: true,
    });
    for (const doi of ["10.1/erratum", "10.1/notice", "10.1/other"])
      expect(workIntegrity({ doi, own: [] }, inForce), doi).toEqual({
        status: "none",
        notices: [],
        listsChecked: true,
      });
  });

  it("gives the status by the same rule, every source's notices each naming its source", () => {
    const integrity = workIntegrity(
      { doi: "10.1/a", own: [sourceNotice("retraction", "openalex")] },
      lists([], { "10.1/a": [sourceNotice("correction", "crossref", { doi: "10.1/c", date: "2020-01-01" })] }),
    );
    expect(integrity).toEqual({
      status: "retracted",
      notices: [
        { type: "retraction", source: "openalex", doi: null, pmid: null, date: null },
        { type: "correction", source: "crossref", doi: "10.1/c", pmid: null, date: "2020-01-01" },
      ],
      listsChecked: true,
    });
    expect(workIntegrity({ doi: "10.1/z", own: [] }, lists([]))).toEqual({
      status: "none",
      notices: [],
      listsChecked: true,
    });
    // a work without a DOI: no list can name it; its own source's flags still count, and the answer says the lists
    // were not checked, so `none` is not read as clear
    expect(workIntegrity({ doi: null, own: [] }, lists(["10.1/z"]))).toEqual({
      status: "none",
      notices: [],
      listsChecked: false,
    });
    expect(
      workIntegrity({ doi: null, own: [sourceNotice("retraction", "medline", { pmid: "1" })] }, lists([])),
    ).toEqual({
      status: "retracted",
      notices: [{ type: "retraction", source: "medline", doi: null, pmid: "1", date: null }],
      listsChecked: false,
    });
    // one notice recorded by two lists is listed once per source
    const twice = lists(["10.1/b"], {
      "10.1/b": [
        sourceNotice("retraction", "retraction_watch", { doi: "10.1/r" }),
        sourceNotice("retraction", "crossref", { doi: "10.1/r" }),
      ],
    });
    expect(workIntegrity({ doi: "10.1/b", own: [] }, twice).notices.map((n) => n.source)).toEqual([
      "crossref",
      "retraction_watch",
    ]);
  });

  it("lists a notice one source names twice once, keeping the date either gives; a new PMID is another notice", () => {
    const notices = [sourceNotice("erratum", "medline", { pmid: "1" })];
    addNotice(notices, sourceNotice("erratum", "medline", { pmid: "1", date: "2021-02-03" }));
    addNotice(notices, sourceNotice("erratum", "medline", { pmid: "2" }));
    addNotice(notices, sourceNotice("erratum", "crossref", { pmid: "1" }));
    expect(notices.map((n) => [n.source, n.pmid, n.date])).toEqual([
      ["medline", "1", "2021-02-03"],
      ["medline", "2", null],
      ["crossref", "1", null],
    ]);
  });

  it("is what ingestion excludes by: the source's flag, a list's DOI, or the flag given at staging", () => {
    const retractedWork = openAlexWorkToDocument({
      id: "W1",
      doi: "10.1/x",
      title: "Retracted: x",
      is_retracted: true,
    });
    expect(retractedWork.notices).toEqual([sourceNotice("retraction", "openalex")]);
    expect(isRetracted(retractedWork, new Set())).toBe(true);
    const plain = openAlexWorkToDocument({ id: "W2", doi: "10.1/y", title: "y" });
    expect(plain.notices).toBeUndefined();
    expect(isRetracted(plain, new Set())).toBe(false);
    expect(isRetracted(plain, new Set(["10.1/y"]))).toBe(true);
    const erratum = medline(citation("3", ["Journal Article"], link("ErratumIn", "4")));
    expect(isRetracted(erratum, new Set())).toBe(false);
  });

  it("reads an OpenAlex record titled 'WITHDRAWN:' (an article in press taken back) as withdrawn", () => {
    const withdrawn = openAlexWorkToDocument({ id: "W3", doi: "10.1/w", title: "WITHDRAWN: Cortisol and stress" });
    expect(withdrawn.notices).toEqual([sourceNotice("withdrawal", "openalex")]);
    expect(isRetracted(withdrawn, new Set())).toBe(false);
    expect(workIntegrity({ doi: "10.1/w", own: withdrawn.notices! }, lists([]))).toMatchObject({
      status: "withdrawn",
    });
    // the word elsewhere in a title is not a notice
    expect(openAlexWorkToDocument({ id: "W4", title: "Withdrawn patients: a cohort" }).notices).toBeUndefined();
    expect(openAlexWorkToDocument({ id: "W5", title: "Social withdrawal: a review" }).notices).toBeUndefined();
  });
});

describe("MEDLINE's integrity record", () => {
  it("reads Retracted Publication and RetractionIn as one retraction naming the notice's PMID", () => {
    const doc = medline(citation("10", ["Journal Article", "Retracted Publication"], link("RetractionIn", "11")));
    expect(doc.notices).toEqual([{ type: "retraction", source: "medline", doi: null, pmid: "11", date: null }]);
    expect(isRetracted(doc, new Set())).toBe(true);
    const typeOnly = medline(citation("12", ["Retracted Publication"], ""));
    expect(typeOnly.notices).toEqual([sourceNotice("retraction", "medline")]);
  });

  it("reads erratum, concern and partial-retraction links; cited works and comments are not notices", () => {
    const doc = medline(
      citation(
        "20",
        ["Journal Article"],
        link("ErratumIn", "21") +
          link("ExpressionOfConcernIn", "22") +
          link("PartialRetractionIn", "23") +
          link("Cites", "24") +
          link("CommentIn", "25"),
      ),
    );
    expect(doc.notices!.map((n) => [n.type, n.pmid])).toEqual([
      ["erratum", "21"],
      ["expression_of_concern", "22"],
      ["partial_retraction", "23"],
    ]);
    expect(workIntegrity({ doi: null, own: doc.notices! }, NO_LISTS).status).toBe("expression_of_concern");
    expect(workIntegrity({ doi: null, own: [sourceNotice("partial_retraction", "medline")] }, NO_LISTS).status).toBe(
      "corrected",
    );
  });

  it("leaves a notice's own citation (a Published Erratum, a Retraction of Publication) without a status", () => {
    expect(medlineNotices({ publicationTypes: ["Published Erratum"], integrityLinks: [] })).toEqual([]);
    const notice = medline(citation("30", ["Retraction of Publication"], link("RetractionOf", "31")));
    expect(notice.notices).toBeUndefined();
    expect(notice.metadata.article_type).toBe("retraction");
  });
});

describe("the sources a row's integrity reads", () => {
  it("merges the own notices of every holder of the work, by DOI and by PMID", () => {
    const oa = sourceNotice("retraction", "openalex");
    const ml = sourceNotice("erratum", "medline", { pmid: "9" });
    const found = new Map([
      ["doi:10.1/a", [oa]],
      ["pmid:7", [ml, oa]],
    ]);
    expect(
      evidenceOf(
        [
          { doi: "10.1/a", pmid: "7" },
          { doi: null, pmid: null },
        ],
        found,
      ),
    ).toEqual([
      { doi: "10.1/a", own: [oa, ml] },
      { doi: null, own: [] },
    ]);
  });

  it("names the source of a load recorded before notices did, by its files' format", () => {
    expect(sourceOfFiles(["retractions/rw.csv"])).toBe("retraction_watch");
    expect(sourceOfFiles(["uploads/updates.jsonl.gz"])).toBe("crossref");
    expect(sourceOfFiles(["a.csv", "b.jsonl"])).toBe("crossref");
  });
});
