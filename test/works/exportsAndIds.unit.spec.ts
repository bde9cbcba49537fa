// Ids as people paste them (DOIs, doi.org, PubMed, PMC and OpenAlex URLs, bare numbers), the link that resolves an
// unheld reference, and exports for screening: abstract, keywords and MeSH, identifiers, the integrity note, every
// value escaped (authors too), ASCII entry keys; each format read back by citation-js and the BibTeX also by
// @retorquere/bibtex-parser (the parser of Better BibTeX for Zotero), two parsers other people maintain.
import { describe, expect, it } from "vitest";
import { Cite } from "@citation-js/core";
import "@citation-js/plugin-bibtex";
import "@citation-js/plugin-ris";
import "@citation-js/plugin-csl";
import { parse as parseBibtex } from "@retorquere/bibtex-parser";
import { parse as parseCsv } from "csv-parse/sync";
import { parseWorkId, resolvingUrl } from "../../src/domain/identifiers.js";
import { exportWorks, type ExportWork } from "../../src/usecases/works/citationExport.js";
import { joinedAbstract } from "../../src/ingest/sourceDocument.js";
import { notFound, unheldEntry } from "../../src/usecases/works/workShapes.js";
import { openAlexWorkToDocument } from "../../src/ingest/openAlexReader.js";
import { medlineCitationToDocument, parseMedlineXml } from "../../src/ingest/medlineReader.js";
import { workOfDocument } from "../../src/ingest/works.js";

describe("a work's id as people paste it", () => {
  it("reads a DOI bare, prefixed, and as a doi.org URL (escaped or not, one slash or two after the scheme)", () => {
    for (const id of [
      "10.1176/appi.ajp.2009.09040539",
      "doi:10.1176/APPI.AJP.2009.09040539",
      "DOI: 10.1176/appi.ajp.2009.09040539",
      "https://doi.org/10.1176/appi.ajp.2009.09040539",
      "https://doi.org/10.1176%2Fappi.ajp.2009.09040539",
      "http://dx.doi.org/10.1176/appi.ajp.2009.09040539",
      "https:/doi.org/10.1176/appi.ajp.2009.09040539",
      "doi.org/10.1176/appi.ajp.2009.09040539",
    ])
      expect(parseWorkId(id), id).toEqual({ field: "doi", value: "10.1176/appi.ajp.2009.09040539" });
  });

  it("reads PubMed, PMC and OpenAlex URLs, with or without a trailing slash or a query", () => {
    for (const id of [
      "https://pubmed.ncbi.nlm.nih.gov/19833787/",
      "https://pubmed.ncbi.nlm.nih.gov/19833787",
      "https:/pubmed.ncbi.nlm.nih.gov/19833787/",
      "https://www.ncbi.nlm.nih.gov/pubmed/19833787",
      "https://pubmed.ncbi.nlm.nih.gov/19833787/?from=search",
      "pmid:19833787",
      "PMID: 19833787",
    ])
      expect(parseWorkId(id), id).toEqual({ field: "pmid", value: "19833787" });
    for (const id of [
      "https://pmc.ncbi.nlm.nih.gov/articles/PMC2811234/",
      "https://www.ncbi.nlm.nih.gov/pmc/articles/pmc2811234",
    ])
      expect(parseWorkId(id), id).toEqual({ field: "pmcid", value: "PMC2811234" });
    for (const id of [
      "https://openalex.org/W565331994",
      "https://openalex.org/works/w565331994",
      "https://api.openalex.org/works/W565331994",
      "openalex:https://openalex.org/W565331994",
      "W565331994",
    ])
      expect(parseWorkId(id), id).toEqual({ field: "openalex", value: "W565331994" });
  });

  it("reads a bare number as a PubMed id first, else a doc_id; refuses URLs of other sites and bad prefixes", () => {
    expect(parseWorkId("19833787")).toEqual({ field: "pmid", value: "19833787", orDocId: true });
    expect(parseWorkId("scifact-12")).toEqual({ field: "doc_id", value: "scifact-12" });
    // an operator's doc_id may be a URL of another site
    expect(parseWorkId("https://example.org/doc/1")).toEqual({ field: "doc_id", value: "https://example.org/doc/1" });
    expect(parseWorkId("https://pubmed.ncbi.nlm.nih.gov/abc/")).toBeNull();
    expect(parseWorkId("https://doi.org/not-a-doi")).toBeNull();
    expect(parseWorkId("doi:19833787")).toBeNull();
    expect(parseWorkId("pmid:W1")).toBeNull();
  });

  it("links an unheld reference by its DOI, else its PubMed page, else its OpenAlex page", () => {
    expect(resolvingUrl({ doi: "10.1/x", pmid: "1", openalex: "W1" })).toBe("https://doi.org/10.1/x");
    expect(resolvingUrl({ pmid: "19833787", openalex: "W1" })).toBe("https://pubmed.ncbi.nlm.nih.gov/19833787/");
    expect(resolvingUrl({ openalex: "W565331994" })).toBe("https://openalex.org/W565331994");
    expect(resolvingUrl({})).toBeNull();
    expect(unheldEntry({ openalex: "W565331994" })).toEqual({
      ids: { doi: null, pmid: null, openalex: "W565331994" },
      url: "https://openalex.org/W565331994",
    });
  });
});

const base: ExportWork = {
  title: null,
  authors: [],
  journal: null,
  issn: [],
  publisher: null,
  publication_date: null,
  article_type: null,
  doi: null,
  pmid: null,
  pmcid: null,
  url: null,
  docId: "d",
  abstract: null,
  keywords: [],
  mesh: [],
  integrity: null,
};

/** the operator's document that lost entries: hostile author names, LaTeX specials everywhere */
const hostile: ExportWork = {
  ...base,
  title: "Braces {in} titles & 50% of_things #1 ~ ^ $ < > \\ end",
  authors: ["O}Brien, Pat", "Smith and Jones", "Back\\slash {Ann}", "Jørgensen, Søren"],
  journal: "J {Odd} & Co",
  publication_date: "2017-02-03",
  doi: "10.1000/odd_{1}",
  docId: "op-1",
  abstract: "Background: first {line}.\nMethods: 100% & more\\done.",
  keywords: ["Hair", "Cortisol"],
  mesh: ["Stress, Psychological", "hair"],
};

const retracted: ExportWork = {
  ...base,
  title: "A retracted trial",
  authors: ["Ørsted, Hans", "Straße, Anna"],
  journal: "Trials",
  publication_date: "2012-01-01",
  doi: "10.1039/c2ob06711k",
  pmid: "22222222",
  pmcid: "PMC2222",
  docId: "W2",
  abstract: "We tested things.",
  integrity: {
    status: "retracted",
    notices: [{ type: "retraction", doi: "10.1039/c3ob90001a", date: "2013-05-01", source: "crossref", pmid: null }],
    listsChecked: true,
  },
};

const corrected: ExportWork = {
  ...base,
  title: "A corrected paper",
  authors: ["Æsir, Bo"],
  journal: "FEBS Letters",
  publication_date: "2016-08-01",
  doi: "10.1002/1873-3468.12357",
  docId: "W3",
  integrity: {
    status: "corrected",
    notices: [{ type: "correction", doi: "10.1002/1873-3468.13185", date: null, source: "crossref", pmid: null }],
    listsChecked: true,
  },
};

const all = [hostile, base, retracted, corrected];

interface CslItem {
  title?: string;
  abstract?: string;
  keyword?: string;
  note?: string;
  DOI?: string;
  PMID?: string;
  author?: { family?: string; given?: string; literal?: string }[];
}

/** The one CSL-JSON item an export of this work writes. */
const cslOf = (work: ExportWork): CslItem => (JSON.parse(exportWorks("csljson", [work])) as CslItem[])[0]!;

/** The BibTeX entry key of a work whose first author is `author`, published in 2017. */
const bibKeyOf = (author: string) =>
  /^@misc\{([^,]+),/.exec(exportWorks("bibtex", [{ ...base, authors: [author], publication_date: "2017" }]))?.[1];

describe("exports for screening", () => {
  it("keeps a name holding the word 'and' whole", () => {
    expect(cslOf({ ...base, authors: ["Smith and Jones", "Sandy Anderson"] }).author).toEqual([
      { literal: "Smith and Jones" },
      { family: "Anderson", given: "Sandy" },
    ]);
  });

  it("sets a generational suffix apart from the family name, as each format's parser reads it", () => {
    const work = { ...base, authors: ["William E. Brown Jr.", "Smith, John, III", "Vera V"] };
    expect(cslOf(work).author).toEqual([
      { family: "Brown", given: "William E.", suffix: "Jr." },
      { family: "Smith", given: "John", suffix: "III" },
      { family: "V", given: "Vera" },
    ]);
    expect(bibKeyOf("William E. Brown Jr.")).toMatch(/^brown2017_/);
    const bib = parseBibtex(exportWorks("bibtex", [work]));
    expect(bib.errors).toEqual([]);
    expect(bib.entries[0]!.fields.author!.slice(0, 2)).toEqual([
      { lastName: "Brown", firstName: "William E.", suffix: "Jr." },
      { lastName: "Smith", firstName: "John", suffix: "III" },
    ]);
    const ris = new Cite(exportWorks("ris", [work])).data as CslItem[];
    expect(ris[0]!.author!.slice(0, 2)).toEqual([
      { family: "Brown", given: "William E.", suffix: "Jr." },
      { family: "Smith", given: "John", suffix: "III" },
    ]);
  });

  it("keys entries by the first author's name in ASCII: ø → o, ß → ss, æ → ae, accents dropped", () => {
    expect(bibKeyOf("Jørgensen, Søren")).toMatch(/^jorgensen2017_[0-9a-f]{6}$/);
    expect(bibKeyOf("Anna Straße")).toMatch(/^strasse2017_/);
    expect(bibKeyOf("Æsir, Odin")).toMatch(/^aesir2017_/);
    expect(bibKeyOf("Müller-Łukasz, Jan")).toMatch(/^mullerlukasz2017_/);
  });

  it("writes the integrity status as a note; none for a work the lists cleared; says when they could not check", () => {
    expect(cslOf(retracted).note).toBe(
      "Integrity: retracted; notices: retraction https://doi.org/10.1039/c3ob90001a (2013-05-01).",
    );
    expect(cslOf({ ...base, integrity: { status: "none", notices: [], listsChecked: true } }).note).toBeUndefined();
    // a work without a DOI: the lists could not name it, and the note says so rather than leaving it looking clear
    expect(cslOf({ ...base, doi: null, integrity: { status: "none", notices: [], listsChecked: false } }).note).toBe(
      "Integrity: not checked against retraction or correction lists (no DOI); the source record flags nothing.",
    );
    expect(cslOf({ ...base, integrity: null }).note).toBeUndefined();
  });

  it("links a notice known by its PMID alone (a MEDLINE erratum) to PubMed, one known by neither not at all", () => {
    const medline: ExportWork = {
      ...base,
      integrity: {
        status: "corrected",
        notices: [
          { type: "erratum", doi: null, pmid: "27012345", date: null, source: "medline" },
          { type: "correction", doi: null, pmid: null, date: "2019-02-03", source: "openalex" },
        ],
        listsChecked: true,
      },
    };
    expect(cslOf(medline).note).toBe(
      "Integrity: corrected; notices: erratum https://pubmed.ncbi.nlm.nih.gov/27012345/; correction (2019-02-03).",
    );
  });

  it("writes BibTeX that both parsers read whole: every entry, authors escaped and 'and' protected", () => {
    const bib = exportWorks("bibtex", all);
    // braces balance in every entry, so a parser that counts them (BibTeX itself, bibtexparser) loses none
    for (const entry of bib.split(/\n(?=@)/)) {
      let depth = 0;
      for (const c of entry) depth += c === "{" ? 1 : c === "}" ? -1 : 0;
      expect(depth, entry).toBe(0);
    }
    const library = parseBibtex(bib);
    expect(library.errors).toEqual([]);
    expect(library.entries).toHaveLength(4);
    const [h, , r, c] = library.entries;
    expect(h!.key).toMatch(/^obrien2017_/);
    expect(h!.fields.title).toBe("Braces {in} titles & 50% of_things #1 ~ ^ $ < > \\ end");
    expect(h!.fields.author).toEqual([
      { lastName: "O}Brien", firstName: "Pat" },
      { name: "Smith and Jones" },
      { lastName: "{Ann}", firstName: "Back\\slash" },
      { lastName: "Jørgensen", firstName: "Søren" },
    ]);
    expect(h!.fields.journal).toBe("J {Odd} & Co");
    // a verbatim field: no LaTeX in it, a brace percent-encoded as a URL spells it
    expect(h!.fields.doi).toBe("10.1000/odd_%7B1%7D");
    expect(h!.fields.abstract).toBe("Background: first {line}. Methods: 100% & more\\done.");
    expect(h!.fields.keywords).toEqual(expect.arrayContaining(["Hair", "Cortisol"]));
    expect(r!.fields.note).toBe(
      "Integrity: retracted; notices: retraction https://doi.org/10.1039/c3ob90001a (2013-05-01).",
    );
    expect(r!.fields.abstract).toBe("We tested things.");
    expect(r!.fields.pmid).toBe("22222222");
    expect(r!.fields.pmcid).toBe("PMC2222");
    expect(r!.key).toMatch(/^orsted2012_/);
    expect(c!.fields.note).toBe("Integrity: corrected; notices: correction https://doi.org/10.1002/1873-3468.13185.");

    const items = new Cite(bib).data as CslItem[];
    expect(items).toHaveLength(4);
    expect(items[0]!.author).toEqual([
      { family: "O}Brien", given: "Pat" },
      { family: "Smith and Jones" },
      { family: "{Ann}", given: "Back\\slash" },
      { family: "Jørgensen", given: "Søren" },
    ]);
    expect(items[0]!.keyword).toContain("Stress, Psychological");
    expect(items[2]!.note).toContain("Integrity: retracted");
    expect(items[3]!.note).toContain("Integrity: corrected");
  });

  it("writes RIS and CSL-JSON that citation-js reads: abstract, keywords and MeSH once each, note, ids", () => {
    for (const format of ["ris", "csljson"] as const) {
      const items = new Cite(exportWorks(format, all)).data as CslItem[];
      expect(items, format).toHaveLength(4);
      expect(items[0]!.title, format).toBe(hostile.title);
      expect(items[0]!.abstract, format).toBe(
        format === "ris" ? "Background: first {line}. Methods: 100% & more\\done." : hostile.abstract,
      );
      expect(items[0]!.author, format).toEqual([
        { family: "O}Brien", given: "Pat" },
        { literal: "Smith and Jones" },
        { family: "{Ann}", given: "Back\\slash" },
        { family: "Jørgensen", given: "Søren" },
      ]);
      expect(items[2]!.note, format).toContain("Integrity: retracted");
      expect(items[3]!.note, format).toContain("Integrity: corrected");
      expect(items[1]!.note, format).toBeUndefined();
      expect(items[2]!.DOI, format).toBe("10.1039/c2ob06711k");
    }
    const ris = exportWorks("ris", [hostile, retracted]);
    expect(ris.match(/^KW {2}- .*$/gm)).toEqual(["KW  - Hair", "KW  - Cortisol", "KW  - Stress, Psychological"]);
    expect(ris).toContain("AB  - We tested things.\r\n");
    expect(ris).toContain(
      "N1  - Integrity: retracted; notices: retraction https://doi.org/10.1039/c3ob90001a (2013-05-01).",
    );
    expect(ris).toContain("AN  - PMID:22222222\r\nC2  - PMC2222\r\n");
    const csl = JSON.parse(exportWorks("csljson", [retracted])) as Record<string, unknown>[];
    expect(csl[0]).toMatchObject({ PMID: "22222222", PMCID: "PMC2222", URL: "https://doi.org/10.1039/c2ob06711k" });
  });

  it("writes CSV that csv-parse reads whole: a header, a row per work, quotes, line breaks, formulas as text", () => {
    const file = exportWorks("csv", [...all, { ...base, title: '=HYPERLINK("http://evil")', abstract: "+1 and more" }]);
    // a byte-order mark first (a spreadsheet reads UTF-8), CRLF line ends
    expect(file.startsWith("\uFEFFtitle,authors,year,")).toBe(true);
    const rows = parseCsv(file, { bom: true, columns: true, record_delimiter: "\r\n" }) as Record<string, string>[];
    expect(rows).toHaveLength(5);
    expect(rows[0]).toMatchObject({
      title: hostile.title,
      authors: "O}Brien, Pat; Smith and Jones; Back\\slash {Ann}; Jørgensen, Søren",
      year: "2017",
      publication_date: "2017-02-03",
      journal: "J {Odd} & Co",
      doi: "10.1000/odd_{1}",
      url: "https://doi.org/10.1000/odd_{1}",
      abstract: hostile.abstract,
      keywords: "Hair; Cortisol; Stress, Psychological",
      integrity: "",
    });
    expect(rows[2]).toMatchObject({
      pmid: "22222222",
      pmcid: "PMC2222",
      integrity: "retracted",
      integrity_note: "Integrity: retracted; notices: retraction https://doi.org/10.1039/c3ob90001a (2013-05-01).",
    });
    // text a spreadsheet would run as a formula opens as text
    expect([rows[4]!.title, rows[4]!.abstract]).toEqual(['\'=HYPERLINK("http://evil")', "'+1 and more"]);
    expect(exportWorks("csv", [])).toBe(
      "\uFEFFtitle,authors,year,publication_date,journal,publisher,issn,article_type,doi,pmid,pmcid,url,integrity," +
        "integrity_note,keywords,abstract\r\n",
    );
  });

  it("links a work without URL or DOI by its PubMed page", () => {
    const csl = JSON.parse(exportWorks("csljson", [{ ...base, pmid: "19833787" }])) as { URL: string }[];
    expect(csl[0]!.URL).toBe("https://pubmed.ncbi.nlm.nih.gov/19833787/");
  });

  it("joins a structured abstract's parts under their labels", () => {
    expect(joinedAbstract([{ section: "abstract", text: " Plain. " }])).toBe("Plain.");
    expect(
      joinedAbstract([
        { section: "background", text: "Why." },
        { section: "methods", text: "How." },
      ]),
    ).toBe("Background: Why.\nMethods: How.");
    expect(joinedAbstract([])).toBeNull();
  });
});

describe("what the works table keeps for exports", () => {
  it("OpenAlex: the abstract, keywords and every MeSH heading", () => {
    const doc = openAlexWorkToDocument({
      id: "https://openalex.org/W1",
      title: "T",
      abstract_inverted_index: { Hair: [0], cortisol: [1], rises: [2] },
      mesh: [
        { descriptor_name: "Hydrocortisone", is_major_topic: true },
        { descriptor_name: "Stress, Psychological", is_major_topic: false },
      ],
    });
    expect(workOfDocument(doc, true).fields).toMatchObject({
      abstract: "Hair cortisol rises",
      keywords: ["Hydrocortisone", "Stress, Psychological"],
      mesh: ["Hydrocortisone", "Stress, Psychological"],
    });
  });

  it("OpenAlex: the journal, never a repository holding a copy (DOAJ)", () => {
    const doaj = {
      display_name: "DOAJ (DOAJ: Directory of Open Access Journals)",
      host_organization_name: "DOAJ: Directory of Open Access Journals",
      issn_l: "2219-1933",
      type: "repository",
    };
    const work = (source: object) =>
      openAlexWorkToDocument({ id: "https://openalex.org/W1", title: "T", primary_location: { source } }).metadata;
    expect(work(doaj)).toMatchObject({ journal: null, publisher: null, issn: null });
    // a journal as the primary location is the journal, as before
    const journal = { display_name: "Bone", host_organization_name: "Elsevier", issn_l: "8756-3282", type: "journal" };
    expect(work(journal)).toMatchObject({ journal: "Bone", publisher: "Elsevier", issn: ["8756-3282"] });
    // a source without a type (older records) is read as before
    expect(work({ display_name: "Bone" })).toMatchObject({ journal: "Bone" });
  });

  it("MEDLINE: a structured abstract under its printed labels, and every MeSH heading, major or not", () => {
    const xml = `<MedlineCitationSet><MedlineCitation Status="MEDLINE"><PMID Version="1">100</PMID><Article>
      <ArticleTitle>T</ArticleTitle><Abstract><AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">Why.</AbstractText>
      <AbstractText Label="METHODS" NlmCategory="METHODS">How.</AbstractText>
      <AbstractText Label="TRIAL REGISTRATION" NlmCategory="BACKGROUND">NCT00380562.</AbstractText></Abstract></Article>
      <MeshHeadingList><MeshHeading><DescriptorName MajorTopicYN="Y">Hair</DescriptorName></MeshHeading>
      <MeshHeading><DescriptorName MajorTopicYN="N">Humans</DescriptorName></MeshHeading></MeshHeadingList>
      </MedlineCitation></MedlineCitationSet>`;
    const [citation] = parseMedlineXml(xml).citations;
    const document = medlineCitationToDocument(citation!);
    const fields = workOfDocument(document, true).fields;
    // the heading as printed; the section stays NLM's category, which the section filter reads
    expect(fields.abstract).toBe("Background: Why.\nMethods: How.\nTrial registration: NCT00380562.");
    expect(document.sections.map((s) => s.section)).toEqual(["background", "methods", "background"]);
    expect(fields.mesh).toEqual(["Hair", "Humans"]);
  });

  it("a bare number not found suggests its pmid: form; any other id lists the forms taken", () => {
    expect(notFound("19833787")).toContain("send pmid:19833787");
    expect(notFound("10.1/nowhere")).toContain("a PubMed URL");
    // a work's citations asked for by another path: the two routes that list them
    expect(notFound("W2106656997/citations")).toBe(
      'no work is named "W2106656997/citations": GET /api/v1/works/W2106656997/cited-by lists the works citing ' +
        "it, and /api/v1/works/W2106656997/references the works it cites",
    );
    expect(notFound("10.1/x/citing")).toContain("/api/v1/works/10.1/x/cited-by");
  });
});
