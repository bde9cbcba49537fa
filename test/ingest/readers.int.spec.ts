// Readers on the real files in the shared data folder: OpenAlex, MEDLINE, SciFact and the retraction lists.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createCollectionCatalog } from "../../src/domain/collectionDefinitions.js";
import { DEFAULT_DATA_ROOT } from "../../src/app/config.js";
import type { PlainCollection } from "../../src/domain/collectionDefinitions.js";
import { readBeirCorpus } from "../../src/ingest/beirReader.js";
import { prepareCollection } from "../../src/ingest/pipelineRules.js";
import { medlineCitationToEditorialDocument } from "../../src/ingest/medlineEditorial.js";
import type { MedlineCitation } from "../../src/ingest/medlineReader.js";
import { medlineCitationToDocument, parseMedlineXml } from "../../src/ingest/medlineReader.js";
import { readOpenAlexWorks } from "../../src/ingest/openAlexReader.js";
import { loadRetractedDois, readOpenRetractionsList, readRetractionWatchList } from "../../src/ingest/retractions.js";
import type { SourceDocument } from "../../src/ingest/sourceDocument.js";
import { readJsonLineItems, readText } from "../../src/ingest/sourceFiles.js";
import { whitespaceTokenizer } from "./wordTokenizer.js";

const dataRoot = process.env.LITSEARCH_DATA_ROOT ?? DEFAULT_DATA_ROOT;
const OPENALEX = join(dataRoot, "articles/openalex_works.synergy.jsonl.gz");
const MEDLINE = join(dataRoot, "articles/pubmed_medline16n0902_sample.xml.gz");
const SCIFACT = join(dataRoot, "scifact/corpus.jsonl");
const RETRACTED_IN_OPENALEX = ["W4230307904", "W4237923007", "W2887538138"];

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function plainCollection(overrides: Partial<PlainCollection> & Pick<PlainCollection, "source">): PlainCollection {
  const { collections } = createCollectionCatalog({
    collections: [
      {
        name: "probe",
        displayName: "Probe",
        description: null,
        kind: "scholarly",
        retrieval: "sparse",
        pricePer1000: "0.010",
        openAccessOnly: false,
        scanFilterable: true,
        ...overrides,
      },
    ],
    metaCollections: [],
  });
  return collections[0]!;
}

describe("OpenAlex works", () => {
  let works: SourceDocument[];
  const rawById = new Map<string, { abstract_inverted_index: Record<string, number[]> | null }>();
  beforeAll(async () => {
    works = await collect(readOpenAlexWorks(OPENALEX));
    for await (const raw of readJsonLineItems(OPENALEX, (value) => value)) {
      const record = raw as { id: string; abstract_inverted_index: Record<string, number[]> | null };
      rawById.set(record.id.replace("https://openalex.org/", ""), record);
    }
  }, 120_000);
  const work = (id: string): SourceDocument => works.find((w) => w.doc_id === id)!;

  it("reads every record once", () => {
    expect(works).toHaveLength(7518);
    expect(new Set(works.map((w) => w.doc_id)).size).toBe(7518);
  });

  it("rebuilds the abstract from the inverted index in position order", () => {
    const pheo = work("W2125158795");
    const text = pheo.sections[0]!.text;
    expect(pheo.sections[0]!.section).toBe("abstract");
    expect(
      text.startsWith(
        // the index holds "Italy.Data" as one word (a line break lost): the sentence boundary is put back
        "To conduct an epidemiological study on pheochromocytoma in Italy. Data on 284 patients with " +
          "pheochromocytoma observed between 1978 and 1997 were collected",
      ),
    ).toBe(true);
    // every word in the order of the positions the index gives it, and nothing else but spaces
    const words: string[] = [];
    for (const [word, positions] of Object.entries(rawById.get("W2125158795")!.abstract_inverted_index!)) {
      for (const position of positions) words[position] = word;
    }
    expect(text.replace(/\s+/g, "")).toBe(words.join(""));
  });

  it("maps bibliographic metadata to the spec fields", () => {
    expect(work("W2125158795").metadata).toMatchObject({
      title: "Pheochromocytoma in Italy: a multicentric retrospective study",
      doi: "10.1530/eje.0.1410619",
      pmid: "10601965",
      journal: "European journal of endocrinology",
      publisher: "Bioscientifica",
      issn: ["0804-4643", "1479-683X"],
      publication_date: "1999-12-01",
      article_type: "research-article",
      open_access: false,
      authors: expect.arrayContaining(["M Mannelli"]),
    });
    expect(work("W2125158795").metadata.keywords).toContain("Pheochromocytoma");
    const withPmc = works.find((w) => w.metadata.pmcid);
    expect(withPmc?.metadata.pmcid).toMatch(/^PMC\d+$/);
    for (const w of works) {
      if (w.metadata.doi) expect(w.metadata.doi).toMatch(/^10\.[^A-Z]+$/);
      for (const issn of w.metadata.issn ?? []) expect(issn).toMatch(/^\d{4}-\d{3}[\dX]$/);
    }
  });

  it("types reviews and protocols from their titles and uses only allowed article types", () => {
    const types = new Set(works.map((w) => w.metadata.article_type));
    expect([...types].every((t) => t && /^[a-z-]+$/.test(t))).toBe(true);
    expect(work("W4237923007").metadata.article_type).toBe("review"); // "... Systematic Review and Meta-Analysis"
    const protocol = works.find(
      (w) => w.title === "Internalizing Symptoms in Pediatric Migraine: A Systematic Review Protocol",
    );
    expect(protocol?.metadata.article_type).toBe("protocol");
    expect(works.filter((w) => w.metadata.article_type === "book-chapter")).toHaveLength(23);
  });

  it("takes open_access from is_oa (oa_status where it is absent) and carries the licence", () => {
    const counts = { open: 0, closed: 0, unknown: 0 };
    for (const w of works) {
      if (w.metadata.open_access === true) counts.open += 1;
      else if (w.metadata.open_access === false) counts.closed += 1;
      else counts.unknown += 1;
    }
    expect(counts).toEqual({ open: 919 + 806 + 694 + 409, closed: 4690, unknown: 0 });
    expect(works.some((w) => w.metadata.license === "cc-by")).toBe(true);
  });

  it("flags the three works OpenAlex marks is_retracted", () => {
    expect(
      works
        .filter((w) => w.retracted)
        .map((w) => w.doc_id)
        .sort(),
    ).toEqual([...RETRACTED_IN_OPENALEX].sort());
  });
});

describe("retraction lists", () => {
  let retracted: Set<string>;
  beforeAll(async () => {
    retracted = await loadRetractedDois(dataRoot);
  }, 60_000);

  it("reads retracted DOIs lower-cased from both lists", async () => {
    const openList = await readOpenRetractionsList(join(dataRoot, "retractions/open_retractions.retracted.jsonl"));
    const watchList = await readRetractionWatchList(join(dataRoot, "retractions/retraction_watch_etl_sampled.csv"));
    const open = new Set(openList.retracted.keys());
    const watch = new Set(watchList.retracted.keys());
    expect(open.has("10.1002/admt.201600145")).toBe(true);
    expect(watch.has("10.1155/2008/961753")).toBe(true);
    expect(watch.has("unavailable")).toBe(false);
    expect(watch.size).toBeGreaterThan(4000);
    expect(watch.size).toBeLessThan(4617);
    for (const doi of retracted) expect(doi).toBe(doi.toLowerCase());
    expect(retracted.size).toBe(new Set([...open, ...watch]).size);
  });

  it("does not list the DOIs of the OpenAlex is_retracted works, so the OpenAlex flag is needed too", async () => {
    expect(
      ["10.1111/hae.13911", "10.3390/jcm9041025", "10.1002/jcb.27143"].filter((doi) => retracted.has(doi)),
    ).toEqual([]);
  });

  it("excludes retracted works from a scholarly OpenAlex collection and counts them", async () => {
    const collection = plainCollection({
      source: { reader: "openalex", files: ["articles/openalex_works.synergy.jsonl.gz"] },
    });
    const prepared = await prepareCollection({ collection, dataRoot, tokenizer: whitespaceTokenizer, retracted });
    expect(prepared.retractedExcluded).toBe(3);
    expect(prepared.retractedDocIds.sort()).toEqual([...RETRACTED_IN_OPENALEX].sort());
    expect(prepared.records.some((r) => RETRACTED_IN_OPENALEX.includes(r.metadata.doc_id))).toBe(false);
    // every record is a work: the indexed ones searchable, the retracted ones and those without an abstract (no text
    // to search) kept as records, with their titles, so a reference to one is not a dead end
    expect(prepared.works).toHaveLength(7518);
    const textless = prepared.works.filter((w) => w.fields.has_text === false);
    expect(textless.length).toBe(prepared.emptyDocuments + prepared.fragmentOnlyDocuments);
    expect(prepared.emptyDocuments).toBeGreaterThan(500);
    expect(textless.every((w) => !w.searchable && w.fields.title)).toBe(true);
    const indexed = new Set(prepared.records.map((r) => r.metadata.doc_id));
    expect(textless.some((w) => indexed.has(w.docId))).toBe(false);
    expect(prepared.works.filter((w) => w.searchable).map((w) => w.docId)).toEqual([...indexed]);
    expect(prepared.works.filter((w) => RETRACTED_IN_OPENALEX.includes(w.docId)).map((w) => w.searchable)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it("keeps a closed work out of an open-access collection's works, retracted or not", async () => {
    const collection = plainCollection({
      openAccessOnly: true,
      source: { reader: "openalex", files: ["articles/openalex_works.synergy.jsonl.gz"] },
    });
    const prepared = await prepareCollection({ collection, dataRoot, tokenizer: whitespaceTokenizer, retracted });
    expect(prepared.works.length).toBe(7518 - prepared.notOpenAccessExcluded);
    // W2887538138 is retracted and closed: the open-access collection does not hold it at all
    expect(prepared.works.some((w) => w.docId === "W2887538138")).toBe(false);
    expect(prepared.retractedDocIds).not.toContain("W2887538138");
  });

  it("matches a MEDLINE citation by DOI (10.11622/smedj.2015191) and excludes it", async () => {
    expect(retracted.has("10.11622/smedj.2015191")).toBe(true);
    const collection = plainCollection({
      source: { reader: "medline", files: ["articles/pubmed_medline16n0902_sample.xml.gz"] },
    });
    const prepared = await prepareCollection({ collection, dataRoot, tokenizer: whitespaceTokenizer, retracted });
    expect(prepared.retractedDocIds).toEqual(["26702166"]);
  });
});

describe("MEDLINE citations", () => {
  let citations: MedlineCitation[];
  beforeAll(async () => {
    citations = parseMedlineXml(await readText(MEDLINE)).citations;
  });
  const citation = (pmid: string): MedlineCitation => citations.find((c) => c.pmid === pmid)!;

  it("reads every MedlineCitation and skips the DeleteCitation", () => {
    expect(citations).toHaveLength(604);
    expect(citations.some((c) => c.pmid === "26432306")).toBe(false);
  });

  it("maps a structured abstract, authors, MeSH, ISSN and the PMC id", () => {
    const document = medlineCitationToDocument(citation("17942999"));
    expect(document.doc_id).toBe("17942999");
    expect(document.sections.map((s) => s.section)).toEqual(["objective", "methods", "results", "conclusions"]);
    expect(document.sections[0]!.text).toMatch(/^An auditory electrophysiological study was conducted/);
    expect(document.metadata).toMatchObject({
      title:
        "Neuroplasticity in the processing of pitch dimensions: a multidimensional scaling analysis of the " +
        "mismatch negativity.",
      journal: "Restorative neurology and neuroscience",
      issn: ["0922-6028"],
      pmid: "17942999",
      pmcid: "PMC4380289",
      publication_date: "2007-01-01",
      article_type: "research-article",
      authors: ["Bharath Chandrasekaran", "Jackson T Gandour", "Ananthanarayan Krishnan"],
    });
    expect(document.metadata.keywords).toContain("Neuronal Plasticity");
  });

  it("takes the DOI from ELocationID and the article type from PublicationTypeList", () => {
    const trial = medlineCitationToDocument(citation("22508830"));
    expect(trial.metadata).toMatchObject({
      doi: "10.1200/jco.2011.38.9411",
      publication_date: "2012-06-20",
      issn: ["0732-183X", "1527-7755"],
    });
    expect(citations.filter((c) => c.doi).length).toBe(579);
    const types = citations.map((c) => medlineCitationToDocument(c).metadata.article_type);
    // 40 reviews by PublicationType, and 5 journal articles still being indexed whose titles say so
    expect(types.filter((t) => t === "review").length).toBe(45);
    expect(types.filter((t) => t === "correction").length).toBe(1);
    // In-Process, listed only as "Journal Article": its title says what it is
    const inProcess = medlineCitationToDocument(citation("26215757")).metadata;
    expect([inProcess.title, inProcess.article_type]).toEqual([
      "Effect of paternal age on reproductive outcomes in oocyte donation model: a systematic review.",
      "review",
    ]);
  });

  it("derives the editorial fields for trial citations and only for them", () => {
    const phase2 = medlineCitationToEditorialDocument(citation("22508830")).metadata;
    expect(phase2).toMatchObject({
      url: "https://pubmed.ncbi.nlm.nih.gov/22508830/",
      last_updated_date: "2015-12-26",
      medical_board_approved: true,
      phases: ["phase2"],
      overall_status: "completed",
      has_results: true,
      nct_id: null,
    });
    expect(phase2.topic).toBeTruthy();
    expect(medlineCitationToEditorialDocument(citation("21933749")).metadata.nct_id).toBe("NCT00585195");
    const plain = medlineCitationToEditorialDocument(citation("17942999")).metadata;
    expect(plain.topic).toBe("Neuronal Plasticity");
    expect(plain).not.toHaveProperty("nct_id");
    expect(plain).not.toHaveProperty("has_results");
    const trials = citations.filter(
      (c) => medlineCitationToEditorialDocument(c).metadata.overall_status === "completed",
    );
    expect(trials).toHaveLength(12);
  });
});

describe("SciFact corpus", () => {
  it("keeps the BEIR _id as doc_id for all 5,183 documents", async () => {
    const documents = await collect(readBeirCorpus(SCIFACT));
    expect(documents).toHaveLength(5183);
    expect(documents[0]).toMatchObject({
      doc_id: "4983",
      title:
        "Microstructural development of human newborn cerebral white matter assessed in vivo by diffusion " +
        "tensor magnetic resonance imaging.",
    });
    expect(documents[0]!.sections[0]!.text).toMatch(/^Alterations of the architecture of cerebral white matter/);
    expect(documents.every((d) => d.sections.length === 1)).toBe(true);
  });

  it("puts doc_id in every chunk of the SciFact collection", async () => {
    const collection = plainCollection({ source: { reader: "beir", files: ["scifact/corpus.jsonl"] } });
    const prepared = await prepareCollection({
      collection,
      dataRoot,
      tokenizer: whitespaceTokenizer,
      retracted: new Set(),
    });
    expect(prepared.documentsIndexed).toBe(5183);
    expect(new Set(prepared.records.map((r) => r.metadata.doc_id)).size).toBe(5183);
    expect(prepared.records[0]!.metadata).toMatchObject({ doc_id: "4983", chunk_index: 0, section: "abstract" });
  });
});
