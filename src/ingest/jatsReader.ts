// Reads PMC open-access article XML (JATS: one <article>, or a <pmc-articleset> of them) into documents: the front
// matter as the spec's metadata fields, abstract and body sections named in one `section` vocabulary, and the figures
// with their labels, captions and the image files that sit beside the XML.
import { checkOperatorFile, operatorPathProblem } from "./operatorFiles.js";
import { dirname, extname, isAbsolute, join, normalize, relative, sep } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { articleTypeFromJats } from "./articleType.js";
import { decodeXmlEntities } from "./inlineMarkup.js";
import { doiFromSource, issnListFromSource, pmcidFromSource, pmidFromSource } from "./sourceIdentifiers.js";
import {
  joinedAbstract,
  type DocumentMetadata,
  type DocumentSection,
  type SourceDocument,
  type SourceWork,
} from "./sourceDocument.js";
import { readText } from "./sourceFiles.js";
import { authorshipsInOrder } from "../domain/authors.js";
import type { FigureRef } from "../retrieval/port.js";

/** The section of text that sits in `<body>` outside any `<sec>` (a short editorial, a letter). */
const JATS_BODY_SECTION = "body";
/** The section of an abstract without `<sec>` parts (the name the MEDLINE reader gives an unstructured abstract). */
const JATS_ABSTRACT_SECTION = "abstract";

interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
type XmlNode = XmlElement | string;

// preserveOrder keeps mixed content ("the <italic>p53</italic> gene") in document order; entities are decoded once,
// by decodeXmlEntities, since the parser leaves numeric character references (&#x2013;) as they are
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
});

/** The parser's ordered output as a plain element tree. */
function toNodes(ordered: unknown): XmlNode[] {
  if (!Array.isArray(ordered)) return [];
  const nodes: XmlNode[] = [];
  for (const entry of ordered as Array<Record<string, unknown>>) {
    for (const [key, value] of Object.entries(entry)) {
      if (key === ":@") continue;
      if (key === "#text") nodes.push(String(value));
      else if (!key.startsWith("?")) {
        const attrs = Object.fromEntries(
          Object.entries((entry[":@"] ?? {}) as Record<string, unknown>).map(([name, v]) => [
            name,
            decodeXmlEntities(String(v)),
          ]),
        );
        nodes.push({ name: key, attrs, children: toNodes(value) });
      }
    }
  }
  return nodes;
}

const isElement = (node: XmlNode | undefined): node is XmlElement => typeof node === "object";
const elements = (element: XmlElement | undefined, name: string): XmlElement[] =>
  (element?.children ?? []).filter((node): node is XmlElement => isElement(node) && node.name === name);
const first = (element: XmlElement | undefined, name: string): XmlElement | undefined => elements(element, name)[0];
const path = (element: XmlElement | undefined, ...names: string[]): XmlElement | undefined =>
  names.reduce<XmlElement | undefined>((at, name) => first(at, name), element);

/** Every `name` element under `element` (not under another `name`, nor in `skip`), in document order. */
function descendants(element: XmlElement, name: string, skip: ReadonlySet<string> = new Set()): XmlElement[] {
  const found: XmlElement[] = [];
  for (const node of element.children) {
    if (!isElement(node) || skip.has(node.name)) continue;
    if (node.name === name) found.push(node);
    else found.push(...descendants(node, name, skip));
  }
  return found;
}

// not text of the section they sit in: figures and tables (figures come back as metadata.figures), formulas as markup,
// footnotes and media
const SKIPPED_IN_TEXT = new Set([
  "fig",
  "fig-group",
  "table-wrap",
  "table-wrap-group",
  "disp-formula",
  "disp-formula-group",
  "tex-math",
  "graphic",
  "inline-graphic",
  "media",
  "supplementary-material",
  "fn",
  "fn-group",
  "object-id",
]);
// elements whose text stands apart from its neighbours' (a space either side)
const BLOCKS = new Set([
  "p",
  "title",
  "label",
  "caption",
  "list",
  "list-item",
  "def-list",
  "def-item",
  "term",
  "def",
  "disp-quote",
  "boxed-text",
  "statement",
  "verse-line",
  "sec",
  "break",
]);

function rawText(node: XmlNode, out: string[]): void {
  if (!isElement(node)) {
    out.push(node);
    return;
  }
  if (SKIPPED_IN_TEXT.has(node.name)) return;
  const block = BLOCKS.has(node.name);
  if (block) out.push(" ");
  for (const child of node.children) rawText(child, out);
  if (block) out.push(" ");
}

/** Plain text of an element: markup dropped, entities decoded, whitespace collapsed; null when empty. */
function textOf(node: XmlNode | undefined): string | null {
  if (node === undefined) return null;
  const out: string[] = [];
  rawText(node, out);
  return decodeXmlEntities(out.join("")).replace(/\s+/g, " ").trim() || null;
}

// --- sections -------------------------------------------------------------------------------------------------------

/**
 * JATS `sec-type` values and section titles → the `section` vocabulary the MEDLINE reader already indexes (NLM's
 * structured-abstract categories: background, objective, methods, results, conclusions) plus `discussion`, which a
 * full text has apart from its conclusions. Introduction is background, as NLM maps it.
 */
const SEC_TYPES: Record<string, string> = {
  intro: "background",
  introduction: "background",
  background: "background",
  objective: "objective",
  objectives: "objective",
  materials: "methods",
  methods: "methods",
  "materials|methods": "methods",
  "methods|materials": "methods",
  subjects: "methods",
  results: "results",
  "results|discussion": "results",
  discussion: "discussion",
  "discussion|conclusions": "discussion",
  conclusion: "conclusions",
  conclusions: "conclusions",
};

const TITLE_RULES: Array<[RegExp, string]> = [
  [/^(introduction|background)\b/, "background"],
  [/^(objectives?|aims?|purpose|goals?)\b/, "objective"],
  [/^(results?|findings)\b/, "results"],
  [/^discussion\b/, "discussion"],
  [/^(conclusions?|concluding remarks|interpretation)\b/, "conclusions"],
  [
    /\bmethod|^(materials|patients|subjects|participants|experimental procedures|experimental section|study design)\b/,
    "methods",
  ],
];

/** A heading without its numbering: "2.1. Study design" → "Study design". */
const unnumbered = (title: string): string => title.replace(/^\s*(?:\d+(?:\.\d+)*[.)]?|[IVXivx]+[.)])\s+/, "");

/** "2.1. Materials & Methods:" → "materials and methods". */
function normalizedTitle(title: string): string {
  return unnumbered(title)
    .toLowerCase()
    .replace(/&/g, "and")
    .replace(/[\s.:;]+$/, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** A `<sec>`'s section name: by its sec-type, else its title in the vocabulary, else its title lower-cased. */
export function jatsSectionName(
  secType: string | null | undefined,
  title: string | null | undefined,
  fallback: string,
): string {
  const byType = secType ? SEC_TYPES[secType.trim().toLowerCase()] : undefined;
  if (byType) return byType;
  const normalized = title ? normalizedTitle(title) : "";
  if (!normalized) return fallback;
  return TITLE_RULES.find(([rule]) => rule.test(normalized))?.[1] ?? normalized;
}

/** A heading read as the first sentence of its text ("Statistical analysis." before the paragraphs under it). */
function asSentence(heading: string): string {
  const title = unnumbered(heading);
  return /[.!?:;]$/.test(title) ? title : `${title}.`;
}

/**
 * The sections of a `<sec>` and the `<sec>`s nested in it, all under `name`: the top-level section decides, so a
 * "Statistical analysis" inside "Methods" filters as methods; a nested heading opens its text.
 */
function secSections(sec: XmlElement, name: string, heading: string | null, out: DocumentSection[]): void {
  let parts: string[] = heading ? [asSentence(heading)] : [];
  let hasText = false;
  const flush = () => {
    if (hasText) out.push({ section: name, text: parts.join("\n") });
    parts = [];
    hasText = false;
  };
  for (const node of sec.children) {
    if (isElement(node) && node.name === "sec") {
      flush();
      secSections(node, name, textOf(first(node, "title")), out);
    } else if (!isElement(node) || (node.name !== "title" && node.name !== "label")) {
      const text = textOf(node);
      if (text) {
        parts.push(text);
        hasText = true;
      }
    }
  }
  flush();
}

/** Sections of a container (`<body>`, `<abstract>`): its top-level `<sec>`s by name, loose text under `looseName`. */
function containerSections(container: XmlElement, looseName: string): DocumentSection[] {
  const sections: DocumentSection[] = [];
  const loose: string[] = [];
  const flushLoose = () => {
    if (loose.length > 0) sections.push({ section: looseName, text: loose.splice(0).join("\n") });
  };
  for (const node of container.children) {
    if (isElement(node) && node.name === "sec") {
      if (node.attrs["sec-type"] === "supplementary-material" || node.attrs["sec-type"] === "display-objects") continue;
      flushLoose();
      const title = textOf(first(node, "title"));
      secSections(node, jatsSectionName(node.attrs["sec-type"], title, looseName), null, sections);
    } else if (!isElement(node) || (node.name !== "title" && node.name !== "label")) {
      const text = textOf(node);
      if (text) loose.push(text);
    }
  }
  flushLoose();
  return sections;
}

// abstracts that are not the article's abstract
const SKIPPED_ABSTRACT_TYPES = new Set(["graphical", "teaser", "toc", "web-summary"]);

function abstractSections(articleMeta: XmlElement | undefined): DocumentSection[] {
  return elements(articleMeta, "abstract")
    .filter((abstract) => !SKIPPED_ABSTRACT_TYPES.has(abstract.attrs["abstract-type"] ?? ""))
    .flatMap((abstract) => {
      // a titled extra abstract ("Author summary") is its own section; the abstract itself is "abstract"
      const title = textOf(first(abstract, "title"));
      const looseName =
        abstract.attrs["abstract-type"] && title && !/^abstract$/i.test(title)
          ? normalizedTitle(title)
          : JATS_ABSTRACT_SECTION;
      return containerSections(abstract, looseName);
    });
}

// --- front matter ---------------------------------------------------------------------------------------------------

function authorName(contrib: XmlElement): string | null {
  const collab = textOf(first(contrib, "collab"));
  if (collab) return collab;
  const name = first(contrib, "name") ?? path(contrib, "name-alternatives", "name");
  if (!name) return textOf(first(contrib, "string-name"));
  const surname = textOf(first(name, "surname"));
  const given = textOf(first(name, "given-names"));
  if (!surname) return given;
  return given ? `${given} ${surname}` : surname;
}

/** The ORCID a contributor carries (`<contrib-id contrib-id-type="orcid">`), as written; null without one. */
function orcidOf(contrib: XmlElement): string | null {
  const id = elements(contrib, "contrib-id").find((e) => e.attrs["contrib-id-type"]?.toLowerCase() === "orcid");
  return id ? textOf(id) : null;
}

/**
 * A `<pub-date>` as YYYY-MM-DD, month and day 01 where the date gives only a year or month (as the MEDLINE reader
 * does).
 */
function isoDate(date: XmlElement | undefined): string | null {
  const year = textOf(first(date, "year"));
  if (!year || !/^\d{4}$/.test(year)) return null;
  const month = textOf(first(date, "month"));
  const day = textOf(first(date, "day"));
  const two = (v: string | null) => (v && /^\d{1,2}$/.test(v) && Number(v) >= 1 ? v.padStart(2, "0") : "01");
  return `${year}-${two(month)}-${month ? two(day) : "01"}`;
}

/** The first publication: electronic, else print, else the (collection) date; never PMC's release date. */
function publicationDate(articleMeta: XmlElement | undefined): string | null {
  const dates = elements(articleMeta, "pub-date");
  const kind = (date: XmlElement): string =>
    date.attrs["pub-type"] ??
    (date.attrs["date-type"] === "pub"
      ? date.attrs["publication-format"] === "print"
        ? "ppub"
        : "epub"
      : (date.attrs["date-type"] ?? ""));
  for (const wanted of ["epub", "ppub", "epub-ppub", "collection", ""]) {
    const date = dates.find((d) => kind(d) === wanted);
    const iso = isoDate(date);
    if (iso) return iso;
  }
  return null;
}

const CC_LICENSE = /creativecommons\.org\/(?:licenses\/([a-z-]+)|publicdomain\/(zero|mark))\//i;

/**
 * The licence (a Creative Commons licence as "cc-by", "cc-by-nc", "cc0"; else the licence's URL) and whether it opens
 * access.
 */
function licenseOf(articleMeta: XmlElement | undefined): { license: string | null; open_access: boolean | null } {
  const license = path(articleMeta, "permissions", "license");
  if (!license) return { license: null, open_access: null };
  const urls = [
    license.attrs["xlink:href"],
    textOf(first(license, "ali:license_ref")),
    ...descendants(license, "ext-link").map((link) => link.attrs["xlink:href"]),
  ].filter((url): url is string => !!url);
  const cc = urls.map((url) => CC_LICENSE.exec(url)).find((match) => match !== null);
  const type = license.attrs["license-type"]?.toLowerCase() ?? null;
  const declaredOpen = type !== null && /open[-_ ]?access/.test(type);
  const id = cc
    ? cc[2] === "zero"
      ? "cc0"
      : cc[2] === "mark"
        ? "public-domain"
        : `cc-${cc[1]!.toLowerCase()}`
    : type && !declaredOpen
      ? type
      : (urls[0] ?? null);
  return { license: id, open_access: cc !== undefined || declaredOpen || /^cc/.test(type ?? "") ? true : null };
}

function articleIds(articleMeta: XmlElement | undefined): {
  doi: string | null;
  pmid: string | null;
  pmcid: string | null;
} {
  const id = (...types: string[]) =>
    elements(articleMeta, "article-id").find((e) => types.includes(e.attrs["pub-id-type"] ?? ""));
  return {
    doi: doiFromSource(textOf(id("doi"))),
    pmid: pmidFromSource(textOf(id("pmid"))),
    pmcid: pmcidFromSource(textOf(id("pmcid", "pmc"))),
  };
}

// --- figures --------------------------------------------------------------------------------------------------------

/** Image formats a figure's file may have when `<graphic xlink:href>` names it without one (PMC packages: .jpg). */
const IMAGE_EXTENSIONS = [".jpg", ".jpeg", ".png", ".gif", ".webp", ".tif", ".tiff"];

/** The largest figure image an article may name. */
const FIGURE_MAX_BYTES = 32 * 1024 * 1024;

/** Whether the operator-file guard passes `file` (inside the data root once links are resolved, a regular file). */
async function isFigureFile(file: string, dataRoot: string): Promise<boolean> {
  const fromRoot = relative(dataRoot, file);
  if (operatorPathProblem(fromRoot)) return false;
  return checkOperatorFile(dataRoot, fromRoot, FIGURE_MAX_BYTES).then(
    () => true,
    () => false,
  );
}

/**
 * The image file `href` names beside the XML, relative to the data root; null when there is none (or it is outside).
 */
async function figureImage(href: string | undefined, xmlDir: string, dataRoot: string): Promise<string | null> {
  if (!href || /^[a-z][a-z0-9+.-]*:/i.test(href) || isAbsolute(href)) return null;
  const base = join(xmlDir, href);
  const withoutExtension = base.replace(/\.[a-z0-9]{2,4}$/i, "");
  for (const candidate of [
    base,
    ...IMAGE_EXTENSIONS.map((e) => base + e),
    ...IMAGE_EXTENSIONS.map((e) => withoutExtension + e),
  ]) {
    // only image files: an href naming the package's PDF or a data file is no figure image
    if (!IMAGE_EXTENSIONS.includes(extname(candidate).toLowerCase()) || !(await isFigureFile(candidate, dataRoot)))
      continue;
    return normalize(relative(dataRoot, candidate)).split(sep).join("/");
  }
  return null;
}

async function figuresOf(article: XmlElement, xmlDir: string, dataRoot: string): Promise<FigureRef[]> {
  const figures: FigureRef[] = [];
  for (const fig of descendants(article, "fig", new Set(["sub-article", "response"]))) {
    const n = figures.length + 1;
    // a caption's title is its first sentence, whether or not it ends with a full stop
    const captionParts = (first(fig, "caption")?.children ?? []).map((node) =>
      isElement(node) && node.name === "title" ? asSentence(textOf(node) ?? "") : textOf(node),
    );
    const graphic = descendants(fig, "graphic")[0];
    const source = await figureImage(graphic?.attrs["xlink:href"], xmlDir, dataRoot);
    figures.push({
      id: fig.attrs.id || `fig${n}`,
      label: textOf(first(fig, "label")) ?? `Figure ${n}`,
      caption: captionParts.filter((part) => part && part !== ".").join(" "),
      ...(source ? { source } : {}),
    });
  }
  return figures;
}

// --- references -----------------------------------------------------------------------------------------------------

/**
 * The `<ref-list>` of an article (back matter, not a sub-article's): how many refs it holds and the ids of those that
 * carry one.
 */
function referencesOf(article: XmlElement): SourceWork {
  const lists = descendants(article, "ref-list", new Set(["sub-article", "response"]));
  if (lists.length === 0) return { references_recorded: null };
  const refs = lists.flatMap((list) => descendants(list, "ref"));
  const references = refs.flatMap((ref) => {
    const ids = [
      ...descendants(ref, "pub-id").map((e) => [e.attrs["pub-id-type"] ?? "", textOf(e)] as const),
      ...descendants(ref, "ext-link").map((e) => [e.attrs["ext-link-type"] ?? "", textOf(e)] as const),
    ];
    const doi = doiFromSource(ids.find(([type]) => type === "doi")?.[1]);
    const pmid = pmidFromSource(ids.find(([type]) => type === "pmid")?.[1]);
    return doi || pmid ? [{ ...(doi ? { doi } : {}), ...(pmid ? { pmid } : {}) }] : [];
  });
  return { references_recorded: refs.length, references };
}

// --- articles -------------------------------------------------------------------------------------------------------

function articlesIn(nodes: XmlNode[]): XmlElement[] {
  return nodes.filter(isElement).flatMap((node) => (node.name === "article" ? [node] : articlesIn(node.children)));
}

const nonEmpty = <T>(values: T[]): T[] | null => (values.length > 0 ? values : null);

/** One `<article>` as a document; doc_id is its PMCID, else its PMID, else its DOI. */
async function articleToDocument(
  article: XmlElement,
  where: string,
  xmlDir: string,
  dataRoot: string,
): Promise<SourceDocument> {
  const front = first(article, "front");
  const journalMeta = first(front, "journal-meta");
  const articleMeta = first(front, "article-meta");
  const ids = articleIds(articleMeta);
  const docId = ids.pmcid ?? ids.pmid ?? ids.doi;
  if (!docId)
    throw new Error(
      `${where}: no <article-id> of pub-id-type pmc, pmcid, pmid or doi, so the article has no identity to be ` +
        "updated or deleted by",
    );
  const title = textOf(path(articleMeta, "title-group", "article-title"));
  const heading = textOf(path(articleMeta, "article-categories", "subj-group", "subject"));
  const articleType = article.attrs["article-type"]
    ? articleTypeFromJats(article.attrs["article-type"])
    : heading
      ? articleTypeFromJats(heading)
      : null;
  const { license, open_access } = licenseOf(articleMeta);
  const body = first(article, "body");
  const abstract = abstractSections(articleMeta);
  const figures = await figuresOf(article, xmlDir, dataRoot);
  const named = elements(articleMeta, "contrib-group")
    .flatMap((group) => elements(group, "contrib"))
    .filter((contrib) => (contrib.attrs["contrib-type"] ?? "author") === "author")
    .flatMap((contrib) => {
      const name = authorName(contrib);
      return name ? [{ name, orcid: orcidOf(contrib) }] : [];
    });
  const metadata: DocumentMetadata = {
    title,
    authors: nonEmpty(named.map((a) => a.name)),
    authorships: named.length > 0 ? authorshipsInOrder(named) : null,
    doi: ids.doi,
    pmid: ids.pmid,
    pmcid: ids.pmcid,
    journal:
      textOf(path(journalMeta, "journal-title-group", "journal-title")) ?? textOf(first(journalMeta, "journal-title")),
    publisher: textOf(path(journalMeta, "publisher", "publisher-name")),
    issn: nonEmpty(
      issnListFromSource([textOf(first(journalMeta, "issn-l")), ...elements(journalMeta, "issn").map(textOf)]),
    ),
    keywords: nonEmpty([
      ...new Set(
        elements(articleMeta, "kwd-group")
          .filter((group) => group.attrs["kwd-group-type"] !== "abbreviations")
          .flatMap((group) => elements(group, "kwd").map(textOf))
          .filter((keyword): keyword is string => keyword !== null),
      ),
    ]),
    publication_date: publicationDate(articleMeta),
    article_type: articleType,
    open_access,
    license,
    figures: nonEmpty(figures),
  };
  return {
    doc_id: docId,
    title,
    sections: [...abstract, ...(body ? containerSections(body, JATS_BODY_SECTION) : [])],
    metadata: Object.fromEntries(
      Object.entries(metadata).filter(([, v]) => v !== null && v !== undefined),
    ) as DocumentMetadata,
    work: { ...referencesOf(article), ...(joinedAbstract(abstract) ? { abstract: joinedAbstract(abstract) } : {}) },
  };
}

/**
 * The articles of a JATS file (".gz" gunzipped), in file order. Figure images are looked up beside the file: a
 * `<graphic xlink:href>` names the file, with or without its extension; `dataRoot` is what their paths are relative to.
 */
export async function* readJatsDocuments(file: string, dataRoot: string): AsyncGenerator<SourceDocument> {
  const xml = await readText(file);
  // the parser itself shrugs off mismatched tags, which would silently cut an article short
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`${file}: not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  const articles = articlesIn(toNodes(parser.parse(xml)));
  if (articles.length === 0)
    throw new Error(`${file}: no <article> element (JATS: <article>, or <pmc-articleset> holding them)`);
  for (const [position, article] of articles.entries()) {
    yield await articleToDocument(article, `${file}: article ${position + 1}`, dirname(file), dataRoot);
  }
}
