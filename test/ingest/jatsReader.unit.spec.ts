// The jats reader on PMC-style JATS fixtures: front matter as the spec's metadata fields, abstract and body sections in
// one `section` vocabulary, figures with the image files beside the XML (and the renderer that serves them).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { createCollectionCatalog } from "../../src/domain/collectionDefinitions.js";
import { REPO_ROOT } from "../../src/app/config.js";
import { createJpegFigureRenderer } from "../../src/usecases/figures/jpegFigureRenderer.js";
import { prepareCollection } from "../../src/ingest/pipelineRules.js";
import { jatsSectionName, readJatsDocuments } from "../../src/ingest/jatsReader.js";
import { readCollectionDocuments } from "../../src/ingest/readCollection.js";
import type { SourceDocument } from "../../src/ingest/sourceDocument.js";
import { whitespaceTokenizer } from "./wordTokenizer.js";
import { tempDirs } from "../support/tempDirs.js";

const fixtures = join(REPO_ROOT, "test", "fixtures");
const ARTICLE = join(fixtures, "jats", "PMC9000001.xml");
const ARTICLE_SET = join(fixtures, "jats", "pmc_articleset.xml");

async function readAll(file: string, dataRoot = fixtures): Promise<SourceDocument[]> {
  const documents: SourceDocument[] = [];
  for await (const document of readJatsDocuments(file, dataRoot)) documents.push(document);
  return documents;
}

const tempDir = tempDirs();

/** A data root with a pmc folder, inside a temporary folder that also holds what lies outside the root. */
function tempRoot(): string {
  const root = join(tempDir("jats-"), "root");
  mkdirSync(join(root, "pmc"), { recursive: true });
  return root;
}

const failure = (file: string) =>
  readAll(file).then(
    () => "no error",
    (e: Error) => e.message,
  );

describe("jats reader", () => {
  it("reads an <article>: front matter, sections by sec-type or title, figures with their images", async () => {
    const [article, ...rest] = await readAll(ARTICLE);
    expect(rest).toEqual([]);
    expect(article!.doc_id).toBe("PMC9000001");
    expect(article!.title).toBe(
      "Vitamin D3 supplementation and quadriceps strength in older adults with low serum 25-hydroxyvitamin D: " +
        "a randomized, placebo-controlled trial",
    );
    expect(article!.metadata).toEqual({
      title: article!.title,
      // the editor is not an author; a collab is
      authors: ["Adaeze N. Okafor", "Maja Lindqvist", "The VDMS Trial Group"],
      // JATS gives no OpenAlex ids: the ORCID a contrib-id carries, and positions from the order
      authorships: [
        { name: "Adaeze N. Okafor", id: null, orcid: "0000-0002-1825-0097", position: "first" },
        { name: "Maja Lindqvist", id: null, orcid: null, position: "middle" },
        { name: "The VDMS Trial Group", id: null, orcid: null, position: "last" },
      ],
      doi: "10.5555/jgmr.2024.0117",
      pmid: "39000101",
      pmcid: "PMC9000001",
      journal: "Journal of Geriatric Musculoskeletal Research",
      publisher: "Example Academic Press",
      issn: ["1234-5679", "2345-678X"],
      // the abbreviations group is not keywords
      keywords: ["vitamin D", "muscle strength", "sarcopenia", "randomized controlled trial"],
      // the electronic publication, not the collection year nor PMC's release
      publication_date: "2024-03-14",
      article_type: "research-article",
      open_access: true,
      license: "cc-by",
      figures: [
        {
          id: "fig1",
          label: "Figure 1",
          caption:
            "Change in quadriceps strength over 12 months. Mean percentage change from baseline in maximal " +
            "isometric quadriceps strength in the vitamin D and placebo groups; error bars show 95% confidence " +
            "intervals.",
          // <graphic xlink:href="PMC9000001-g001"> names the file without its extension
          source: "jats/PMC9000001-g001.jpg",
        },
      ],
    });
    // the structured abstract, then the body: "2. Materials and Methods" and its subsections are all methods
    expect(article!.sections.map((s) => s.section)).toEqual([
      "background",
      "methods",
      "results",
      "conclusions",
      "background",
      "methods",
      "methods",
      "methods",
      "results",
      "discussion",
      "conclusions",
    ]);
    const text = (i: number) => article!.sections[i]!.text;
    expect(text(2)).toBe(
      "Quadriceps strength rose by 9.8% with vitamin D and by 1.2% with placebo (difference 8.6 percentage " +
        "points; 95% CI 4.1–13.1; p < 0.001).",
    );
    expect(text(4)).toMatch(
      /^Muscle weakness predicts falls, fractures and loss of independence in later life \[1,2\]\. Vitamin D receptors/,
    );
    // a subsection's heading opens its text, without its number
    expect(text(5)).toMatch(/^Study Design and Participants\.\nThis was a single-centre/);
    expect(text(7)).toMatch(/^Statistical Analysis\.\nThe primary outcome/);
    // formulas, tables, figure captions, acknowledgements and references are not section text
    const all = article!.sections.map((s) => s.text).join("\n");
    for (const absent of [
      "Δ",
      "Age, years",
      "Baseline characteristics",
      "error bars",
      "We thank",
      "Muscle weakness and falls.",
    ])
      expect(all).not.toContain(absent);
    expect(text(8)).toContain("(Figure 1). The gain was larger");
  });

  it("reads a <pmc-articleset>: pmcids, date-type dates, a license_ref, floats-group figures, loose text", async () => {
    const [review, editorial, ...rest] = await readAll(ARTICLE_SET);
    expect(rest).toEqual([]);
    expect(review!.doc_id).toBe("PMC9000002");
    expect(review!.metadata).toMatchObject({
      doi: "10.5555/nmr.2023.042",
      pmcid: "PMC9000002",
      journal: "Nutrition & Muscle Reviews",
      issn: ["3456-7897"],
      publication_date: "2023-11-02",
      article_type: "review",
      license: "cc-by-nc-nd",
      open_access: true,
      authors: ["Rami Haddad", "Ines Ferreira"],
      // a caption title without a full stop still reads as the caption's first sentence
      figures: [
        {
          id: "f1",
          label: "Fig. 1",
          caption: "Vitamin D receptor in human skeletal muscle. Receptor expression by age group.",
          source: "jats/PMC9000002-g001.png",
        },
      ],
    });
    expect(review!.metadata).not.toHaveProperty("pmid");
    // an unstructured abstract is "abstract"; a topical section keeps its title, lower-cased
    expect(review!.sections.map((s) => s.section)).toEqual([
      "abstract",
      "background",
      "the vitamin d receptor in muscle",
      "calcium handling and fibre size",
      "conclusions",
    ]);

    expect(editorial).toMatchObject({
      doc_id: "PMC9000003",
      title: "Editorial: strength first",
      metadata: {
        pmid: "39000103",
        publication_date: "2024-06-01",
        article_type: "editorial",
        authors: ["Claire Moreau"],
      },
    });
    // no licence: open access unknown, not false; the reviewer report's figure and text are not the editorial's
    for (const absent of ["license", "open_access", "figures", "keywords"])
      expect(editorial!.metadata).not.toHaveProperty(absent);
    expect(editorial!.sections).toEqual([
      {
        section: "body",
        text:
          "This issue gathers trials that measure what older patients care about: getting up from a chair, " +
          "walking to the shops, not falling. Strength is the common thread, and it can be trained at any " +
          "age.\nWe ask authors to report strength outcomes in absolute units as well as percentages, so that " +
          "readers can judge whether a change matters to a patient.",
      },
    ]);
  });

  it("reads a gzipped file, finding the figure image beside it", async () => {
    const root = tempRoot();
    writeFileSync(join(root, "pmc", "PMC9000001.xml.gz"), gzipSync(readFileSync(ARTICLE)));
    copyFileSync(join(fixtures, "jats", "PMC9000001-g001.jpg"), join(root, "pmc", "PMC9000001-g001.jpg"));
    const [article] = await readAll(join(root, "pmc", "PMC9000001.xml.gz"), root);
    expect(article!.doc_id).toBe("PMC9000001");
    expect(article!.metadata.figures).toEqual([
      expect.objectContaining({ id: "fig1", source: "pmc/PMC9000001-g001.jpg" }),
    ]);
  });

  it("keeps a figure with no image; never names a file outside the data root, a URL or a non-image", async () => {
    const root = tempRoot();
    const xml = readFileSync(ARTICLE, "utf8");
    writeFileSync(join(root, "pmc", "a.xml"), xml);
    writeFileSync(
      join(root, "pmc", "b.xml"),
      xml.replace('xlink:href="PMC9000001-g001"', 'xlink:href="../../outside.jpg"'),
    );
    writeFileSync(
      join(root, "pmc", "c.xml"),
      xml.replace('xlink:href="PMC9000001-g001"', 'xlink:href="https://example.org/PMC9000001-g001.jpg"'),
    );
    writeFileSync(join(root, "pmc", "d.xml"), xml.replace('xlink:href="PMC9000001-g001"', 'xlink:href="d.xml"'));
    writeFileSync(join(root, "..", "outside.jpg"), "not inside");
    for (const file of ["a.xml", "b.xml", "c.xml", "d.xml"]) {
      const [article] = await readAll(join(root, "pmc", file), root);
      expect(article!.metadata.figures).toEqual([
        { id: "fig1", label: "Figure 1", caption: expect.stringMatching(/^Change in quadriceps strength/) },
      ]);
    }
  });

  it("never names a figure image that is a link out of the data root, a FIFO or a directory", async () => {
    const root = tempRoot();
    const xml = readFileSync(ARTICLE, "utf8");
    const outside = join(tempDir("jats-outside-"), "outside-figure.jpg");
    copyFileSync(join(fixtures, "jats", "PMC9000001-g001.jpg"), outside);
    symlinkSync(outside, join(root, "pmc", "linked-out.jpg"));
    execFileSync("mkfifo", [join(root, "pmc", "pipe.jpg")]);
    mkdirSync(join(root, "pmc", "folder.jpg"));
    for (const href of ["linked-out", "pipe", "folder"]) {
      writeFileSync(
        join(root, "pmc", `${href}.xml`),
        xml.replace('xlink:href="PMC9000001-g001"', `xlink:href="${href}.jpg"`),
      );
      const [article] = await readAll(join(root, "pmc", `${href}.xml`), root);
      expect(article!.metadata.figures, href).toEqual([
        { id: "fig1", label: "Figure 1", caption: expect.stringMatching(/^Change in quadriceps strength/) },
      ]);
    }
  });

  it("fails naming the file when it holds no article, is not XML, or an article has no identifier", async () => {
    const root = tempRoot();
    writeFileSync(join(root, "pmc", "set.xml"), '<?xml version="1.0"?><MedlineCitationSet></MedlineCitationSet>');
    writeFileSync(join(root, "pmc", "broken.xml"), "<article><front><article-meta></front></article>");
    writeFileSync(
      join(root, "pmc", "anonymous.xml"),
      "<pmc-articleset><article><front><article-meta><article-id " +
        'pub-id-type="pmc">1</article-id></article-meta></front></article><article><front><article-meta><article-' +
        'id pub-id-type="publisher-id">x</article-id></article-meta></front></article></pmc-articleset>',
    );
    expect(await failure(join(root, "pmc", "set.xml"))).toMatch(/set\.xml: no <article> element/);
    expect(await failure(join(root, "pmc", "broken.xml"))).toMatch(/broken\.xml: not well-formed XML/);
    expect(await failure(join(root, "pmc", "anonymous.xml"))).toMatch(
      /anonymous\.xml: article 2: no <article-id> of pub-id-type pmc, pmcid, pmid or doi/,
    );
  });

  it("names sections in the MEDLINE vocabulary by sec-type, else by title, else by the title itself", () => {
    const cases: Array<[string | null, string | null, string]> = [
      ["materials|methods", "Experimental", "methods"],
      ["intro", null, "background"],
      [null, "Introduction", "background"],
      [null, "BACKGROUND", "background"],
      [null, "2. Materials & Methods", "methods"],
      [null, "Patients and methods", "methods"],
      [null, "Methodology", "methods"],
      [null, "Experimental procedures", "methods"],
      [null, "III. Results and Discussion", "results"],
      [null, "Findings", "results"],
      [null, "Discussion and conclusions", "discussion"],
      [null, "Conclusion.", "conclusions"],
      [null, "Interpretation", "conclusions"],
      [null, "Aims", "objective"],
      [null, "Case presentation", "case presentation"],
      [null, "IV therapy in the ward", "iv therapy in the ward"],
      ["cases", "Case Report", "case report"],
      [null, null, "body"],
    ];
    for (const [secType, title, section] of cases)
      expect([secType, title, jatsSectionName(secType, title, "body")]).toEqual([secType, title, section]);
  });

  it("reads a jats collection: its ingestion chunks every section and gives each chunk its figures", async () => {
    const collection = createCollectionCatalog({
      collections: [
        {
          name: "pmc-oa",
          displayName: "PMC",
          description: null,
          kind: "scholarly",
          retrieval: "sparse",
          pricePer1000: "0.010",
          openAccessOnly: true,
          scanFilterable: true,
          source: { reader: "jats", files: ["jats/PMC9000001.xml", "jats/pmc_articleset.xml"] },
        },
      ],
      metaCollections: [],
    }).collections[0]!;
    const items = [];
    for await (const item of readCollectionDocuments(collection, fixtures)) items.push(item);
    expect(items.map((item) => item.doc_id)).toEqual(["PMC9000001", "PMC9000002", "PMC9000003"]);
    const prepared = await prepareCollection({
      collection,
      dataRoot: fixtures,
      tokenizer: whitespaceTokenizer,
      retracted: new Set(),
    });
    // the editorial declares no licence, so an open-access-only collection leaves it out
    expect([prepared.documentsIndexed, prepared.notOpenAccessExcluded]).toEqual([2, 1]);
    const results = prepared.records.filter(
      (r) => r.metadata.doc_id === "PMC9000001" && r.metadata.section === "results",
    );
    expect(results.map((r) => r.text).join(" ")).toContain("a difference of 8.6 percentage points");
    expect(results.every((r) => r.metadata.figures?.[0]?.source === "jats/PMC9000001-g001.jpg")).toBe(true);
  });
});

describe("figure renderer", () => {
  const options = { maxWidth: 120, maxHeight: 120, quality: 70 };
  const figure = { id: "fig1", label: "Figure 1", caption: "c" };

  it("renders a source figure from the data root as JPEG, drawn ones from the collection figure folder", async () => {
    const figureRoot = tempDir("figures-");
    mkdirSync(join(figureRoot, "demo"));
    copyFileSync(join(fixtures, "jats", "PMC9000002-g001.png"), join(figureRoot, "demo", "chunk-1.png"));
    const renderer = createJpegFigureRenderer(figureRoot, fixtures);
    const fromSource = await renderer.render(
      { physical: "pmc-oa" },
      { ...figure, source: "jats/PMC9000001-g001.jpg" },
      options,
    );
    const meta = await sharp(Buffer.from(fromSource!, "base64")).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 120, 80]);
    expect(await renderer.render({ physical: "demo" }, { ...figure, path: "chunk-1.png" }, options)).toEqual(
      expect.any(String),
    );
  });

  it("renders nothing for a file outside the data root, a missing file, a non-image, or no data root", async () => {
    const renderer = createJpegFigureRenderer(tempDir("figures-"), join(fixtures, "jats"));
    expect(
      await renderer.render({ physical: "pmc-oa" }, { ...figure, source: "../medline/README.md" }, options),
    ).toBeNull();
    expect(await renderer.render({ physical: "pmc-oa" }, { ...figure, source: "/etc/hostname" }, options)).toBeNull();
    expect(await renderer.render({ physical: "pmc-oa" }, { ...figure, source: "missing.jpg" }, options)).toBeNull();
    expect(await renderer.render({ physical: "pmc-oa" }, { ...figure, source: "README.md" }, options)).toBeNull();
    expect(
      await createJpegFigureRenderer(tmpdir()).render(
        { physical: "pmc-oa" },
        { ...figure, source: "jats/PMC9000001-g001.jpg" },
        options,
      ),
    ).toBeNull();
  });
});
