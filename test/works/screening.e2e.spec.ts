// Works a reviewer can screen and reach, on the real service (Temporal, PGlite, both engines): exports with keywords,
// MeSH, identifiers, the integrity note and the abstracts paid for (none in a batch), read back by citation-js and by
// @retorquere/bibtex-parser (Better BibTeX's parser) on real OpenAlex and MEDLINE rows of the demo data with notices, a
// work the shipped lists flag retracted and an operator's document with hostile author names; references that link,
// within the key's scope; and a work found from its id as people paste it (a DOI with its slashes, doi.org, PubMed and
// OpenAlex URLs, a number).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Cite } from "@citation-js/core";
import "@citation-js/plugin-bibtex";
import "@citation-js/plugin-ris";
import "@citation-js/plugin-csl";
import { parse as parseBibtex } from "@retorquere/bibtex-parser";
import {
  ENGINES,
  operatorSteps,
  SHARED_DATA,
  sliceDataRoot,
  startWithCustomer,
  type httpClient,
  type TestService,
} from "../support/testService.js";
import { plainCollection, writeCollectionsConfig } from "../support/operatorContent.js";

/** real OpenAlex rows of the demo data: one the shipped Crossref updates give a correction (it cites 9 works) */
const CORRECTED_OPENALEX = "10.1002/sim.5566";
const CORRECTED_OPENALEX_ID = "W2151781583";
const CORRECTED_OPENALEX_PMID = "22899372";
/** a real MEDLINE citation of the demo data the shipped updates give a correction */
const CORRECTED_MEDLINE = "10.1007/s11693-015-9171-0";
const CORRECTED_MEDLINE_PMID = "26702309";
/**
 * a DOI the shipped Crossref updates flag retracted. No demo work with text is flagged retracted by the shipped lists
 * (the one MEDLINE citation Retraction Watch names, 10.11622/smedj.2015191, has no abstract, so it is no work), so the
 * retracted work is a document of ours with that DOI.
 */
const RETRACTED_DOI = "10.1039/c2ob06711k";

const openAlexRows = (dois: string[]) =>
  gunzipSync(readFileSync(join(SHARED_DATA, "articles", "openalex_works.synergy.jsonl.gz")))
    .toString("utf8")
    .split("\n")
    .filter((line) => dois.some((d) => line.toLowerCase().includes(`"https://doi.org/${d}"`)));

/** The MEDLINE citations naming these DOIs, cut from the demo file as they are, in a file of their own. */
function medlineFileOf(dois: string[]): Buffer {
  const xml = gunzipSync(readFileSync(join(SHARED_DATA, "articles", "pubmed_medline16n0902_sample.xml.gz"))).toString(
    "utf8",
  );
  const head = xml.slice(0, xml.indexOf("<MedlineCitation "));
  const citations = dois.map((d) => {
    const at = xml.toLowerCase().indexOf(d);
    const start = xml.lastIndexOf("<MedlineCitation ", at);
    return xml.slice(start, xml.indexOf("</MedlineCitation>", at) + "</MedlineCitation>".length);
  });
  return gzipSync(`${head}${citations.join("\n")}\n</MedlineCitationSet>\n`);
}

const TRIAL_ABSTRACT = "Randomised screening trial of coral reef exports measuring abstract coverage in reviews";

/** an OpenAlex record of ours: the trial whose references the customer could not click */
const TRIAL = {
  id: "https://openalex.org/W990000001",
  doi: "https://doi.org/10.9999/trial.1",
  title: "Screening trial of coral reef exports",
  publication_date: "2021-05-01",
  type: "article",
  ids: { openalex: "https://openalex.org/W990000001", doi: "https://doi.org/10.9999/trial.1" },
  authorships: [{ author: { display_name: "Søren Jørgensen" } }],
  primary_location: { source: { display_name: "Journal of Screening Tests", issn: ["1234-5678"] } },
  referenced_works: [`https://openalex.org/${CORRECTED_OPENALEX_ID}`, "https://openalex.org/W565331994"],
  abstract_inverted_index: Object.fromEntries(TRIAL_ABSTRACT.split(" ").map((w, i) => [w, [i]])),
};

const RETRACTED = {
  ...TRIAL,
  id: "https://openalex.org/W990000002",
  doi: `https://doi.org/${RETRACTED_DOI}`,
  title: "Coral reef exports retracted",
  ids: { openalex: "https://openalex.org/W990000002", doi: `https://doi.org/${RETRACTED_DOI}` },
  authorships: [{ author: { display_name: "Ørjan Æbelø" } }],
  referenced_works: [],
  abstract_inverted_index: { Retracted: [0], work: [1], abstract: [2] },
};

/** the operator's document whose BibTeX lost entries */
const HOSTILE = {
  id: "op-hostile",
  title: "Operator {document} & 50% of_it",
  sections: [{ title: "Abstract", text: "Hostile names {and} braces & more\\here." }],
  authors: ["O}Brien, Pat", "Smith and Jones", "Back\\slash {Ann}"],
  doi: "10.9999/hostile.1",
  journal: "Operator Notes",
  publication_date: "2019-01-01",
  keywords: ["Hostile input"],
};

describe.each(ENGINES)("screening and reaching works on the %s engine", (engine) => {
  let svc: TestService;
  let call: ReturnType<typeof httpClient>;
  let key: string;
  let scopedKey: string;

  beforeAll(async () => {
    const dataRoot = await sliceDataRoot(5);
    writeFileSync(
      join(dataRoot, "trials.jsonl.gz"),
      gzipSync([TRIAL, RETRACTED].map((w) => JSON.stringify(w)).join("\n") + "\n"),
    );
    writeFileSync(join(dataRoot, "real.jsonl.gz"), gzipSync(openAlexRows([CORRECTED_OPENALEX]).join("\n") + "\n"));
    writeFileSync(join(dataRoot, "medline.xml.gz"), medlineFileOf([CORRECTED_MEDLINE]));
    writeFileSync(join(dataRoot, "operator.jsonl"), JSON.stringify(HOSTILE) + "\n");
    const sparse = { retrieval: "sparse" as const, scanFilterable: false };
    ({ svc, call, key } = await startWithCustomer(
      {
        dataRoot,
        collectionsConfig: writeCollectionsConfig([
          plainCollection("trials", "openalex", ["trials.jsonl.gz"], sparse),
          plainCollection("real", "openalex", ["real.jsonl.gz"], sparse),
          plainCollection("medline", "medline", ["medline.xml.gz"], sparse),
          plainCollection("operator", "jsonl", ["operator.jsonl"], sparse),
        ]),
        engine,
      },
      "20.00",
    ));
    scopedKey = (await operatorSteps(call, svc.adminToken).customer({ credits: "1.00", collections: ["trials"] })).key;
  }, 600_000);

  afterAll(async () => {
    await svc?.close();
  });

  /** a path sent as written: a DOI's slashes and a URL's "//" stay as they are */
  const raw = (path: string, k = key) => call("GET", path, { key: k });

  it("finds a work from a DOI with its slashes, doi.org, PubMed and OpenAlex URLs, doi: and a bare PMID", async () => {
    for (const id of [
      `/api/v1/works/${CORRECTED_OPENALEX}`,
      `/api/v1/works/doi:${CORRECTED_OPENALEX}`,
      `/api/v1/works/https://doi.org/${CORRECTED_OPENALEX}`,
      `/api/v1/works/${encodeURIComponent(`https://doi.org/${CORRECTED_OPENALEX}`)}`,
      `/api/v1/works/https://pubmed.ncbi.nlm.nih.gov/${CORRECTED_OPENALEX_PMID}/`,
      `/api/v1/works/${encodeURIComponent(`https://pubmed.ncbi.nlm.nih.gov/${CORRECTED_OPENALEX_PMID}/`)}`,
      `/api/v1/works/https://openalex.org/${CORRECTED_OPENALEX_ID}`,
      `/api/v1/works/${encodeURIComponent(`https://openalex.org/${CORRECTED_OPENALEX_ID}`)}`,
      `/api/v1/works/${CORRECTED_OPENALEX_PMID}`,
      // a link copied with its tracking parameters: the URL's own query string, not the route's
      `/api/v1/works/https://doi.org/${CORRECTED_OPENALEX}?utm_source=pubmed&utm_medium=email`,
      `/api/v1/works/https://pubmed.ncbi.nlm.nih.gov/${CORRECTED_OPENALEX_PMID}/?from_term=x`,
      // a parameter named like a property every object has (constructor, toString) is the link's too
      `/api/v1/works/https://doi.org/${CORRECTED_OPENALEX}?constructor=x&toString=y`,
    ]) {
      const res = await raw(id);
      expect(res.status, id).toBe(200);
      expect(res.body.ids, id).toMatchObject({ doi: CORRECTED_OPENALEX, openalex: CORRECTED_OPENALEX_ID });
    }
    // an id that is not a URL keeps the strict reading, and a URL's link still takes the route's own format
    const unknown = await raw(`/api/v1/works/${CORRECTED_OPENALEX}?utm_source=pubmed`);
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.message).toContain("utm_source");
    const file = await fetch(
      `${svc.baseUrl}/api/v1/works/https://doi.org/${CORRECTED_OPENALEX}?utm_source=x&format=ris`,
      {
        headers: { Authorization: `Bearer ${key}` },
      },
    );
    expect(file.status).toBe(200);
    expect(await file.text()).toContain(`DO  - ${CORRECTED_OPENALEX}`);
    const medline = await raw(`/api/v1/works/${CORRECTED_MEDLINE_PMID}`);
    expect(medline.body.ids).toMatchObject({ doi: CORRECTED_MEDLINE, pmid: CORRECTED_MEDLINE_PMID });
    // its lists, with the DOI's slash unencoded and as a URL
    for (const path of [
      `/api/v1/works/${CORRECTED_OPENALEX}/references`,
      `/api/v1/works/https://doi.org/${CORRECTED_OPENALEX}/references`,
      `/api/v1/works/${encodeURIComponent(`https://doi.org/${CORRECTED_OPENALEX}`)}/references`,
    ]) {
      const res = await raw(path);
      expect(res.status, path).toBe(200);
      expect(res.body.coverage.recorded, path).toBe(9);
    }
    const citing = await raw(`/api/v1/works/${CORRECTED_OPENALEX}/cited-by`);
    expect(citing.status).toBe(200);
    expect(citing.body.items.map((w: { ids: { doi: string } }) => w.ids.doi)).toEqual(["10.9999/trial.1"]);
  });

  it("answers an unknown bare number with a 404 suggesting pmid:, an unknown DOI path WORK_NOT_FOUND", async () => {
    const number = await raw("/api/v1/works/19833787");
    expect(number.status).toBe(404);
    expect(number.body.error.code).toBe("WORK_NOT_FOUND");
    expect(number.body.error.message).toContain("pmid:19833787");
    const doi = await raw("/api/v1/works/10.1176/appi.ajp.2009.09040539/references");
    expect(doi.status).toBe(404);
    expect(doi.body.error.code).toBe("WORK_NOT_FOUND");
    // the canonical-path guard still refuses what is no spelling of a work
    expect((await raw("/api/v1/works/10.1176//appi")).status).toBe(404);
    expect((await raw("/api/v1/works/10.1176/appi/")).body.error.code).toBe("NOT_FOUND");
  });

  it("links every unheld reference, and shows a held one only to a key that reaches its collection", async () => {
    const full = await raw("/api/v1/works/10.9999/trial.1/references");
    expect(full.status).toBe(200);
    expect(full.body.items).toEqual([
      expect.objectContaining({
        held: true,
        title: expect.stringContaining("interchangeability"),
        ids: expect.objectContaining({ doi: CORRECTED_OPENALEX }),
        publication_date: "2013-02-10",
      }),
      {
        held: false,
        ids: { doi: null, pmid: null, openalex: "W565331994" },
        url: "https://openalex.org/W565331994",
      },
    ]);
    // a key scoped to the trial's collection: the work held elsewhere reads like one held nowhere, nothing leaks
    const scoped = await raw("/api/v1/works/10.9999/trial.1/references", scopedKey);
    expect(scoped.status).toBe(200);
    expect(scoped.body.items[0]).toEqual({
      held: false,
      ids: { doi: null, pmid: null, openalex: CORRECTED_OPENALEX_ID },
      url: `https://openalex.org/${CORRECTED_OPENALEX_ID}`,
    });
    expect(JSON.stringify(scoped.body)).not.toContain("interchangeability");
    expect(scoped.body.coverage.held).toBe(0);
    expect((await raw(`/api/v1/works/${CORRECTED_OPENALEX}`, scopedKey)).status).toBe(404);
  });

  const ids = [RETRACTED_DOI, CORRECTED_OPENALEX, CORRECTED_MEDLINE, "10.9999/hostile.1", "10.9999/trial.1"];
  const exportOf = async (format: string) => {
    const res = await fetch(`${svc.baseUrl}/api/v1/works/batch?format=${format}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ ids }),
    });
    expect(res.status, format).toBe(200);
    return res.text();
  };

  it("exports BibTeX both parsers read whole: MeSH, notes, escaped authors, ASCII keys, no abstract", async () => {
    const bib = await exportOf("bibtex");
    const library = parseBibtex(bib);
    expect(library.errors).toEqual([]);
    expect(library.entries.map((e) => e.fields.doi)).toEqual(ids);
    const [retracted, corrected, medline, hostile, trial] = library.entries;
    expect(retracted!.fields.note).toMatch(/^Integrity: retracted; notices: .*https:\/\/doi\.org\/10\./);
    expect(retracted!.key).toMatch(/^aebelo2021_/);
    expect(corrected!.fields.note).toMatch(/^Integrity: corrected; notices: correction https:\/\/doi\.org\//);
    // a batch buys nothing: the abstract is the text search and unlock sell
    for (const entry of library.entries) expect(entry.fields.abstract, entry.key).toBeUndefined();
    expect(corrected!.fields.keywords?.length).toBeGreaterThan(0);
    expect(corrected!.fields.pmid).toBe(CORRECTED_OPENALEX_PMID);
    expect(medline!.fields.note).toMatch(/^Integrity: corrected/);
    expect(medline!.fields.pmid).toBe(CORRECTED_MEDLINE_PMID);
    expect(hostile!.fields.author).toEqual([
      { lastName: "O}Brien", firstName: "Pat" },
      { name: "Smith and Jones" },
      { lastName: "{Ann}", firstName: "Back\\slash" },
    ]);
    expect(hostile!.fields.title).toBe("Operator {document} & 50% of_it");
    expect(hostile!.fields.note).toBeUndefined();
    expect(trial!.key).toMatch(/^jorgensen2021_[0-9a-f]{6}$/);

    const items = new Cite(bib).data as { DOI?: string; note?: string; abstract?: string; author?: unknown[] }[];
    expect(items.map((i) => i.DOI?.toLowerCase())).toEqual(ids);
    expect(items[3]!.author).toHaveLength(3);
  });

  it("exports RIS and CSL-JSON that citation-js reads: keywords, note, PMID and PMCID, no abstract", async () => {
    for (const format of ["ris", "csljson"]) {
      const items = new Cite(await exportOf(format)).data as {
        DOI?: string;
        note?: string;
        abstract?: string;
        keyword?: string;
      }[];
      expect(
        items.map((i) => i.DOI?.toLowerCase()),
        format,
      ).toEqual(ids);
      expect(items[0]!.note, format).toMatch(/^Integrity: retracted/);
      expect(items[1]!.note, format).toMatch(/^Integrity: corrected/);
      expect(
        items.map((i) => i.abstract),
        format,
      ).toEqual(ids.map(() => undefined));
      expect(items[1]!.keyword, format).toEqual(expect.any(String));
      expect(items[3]!.note, format).toBeUndefined();
    }
    const ris = await exportOf("ris");
    expect(ris).toContain(`AN  - PMID:${CORRECTED_MEDLINE_PMID}\r\n`);
    // one work by its id, as a file: the batch's entry for it
    const one = await fetch(`${svc.baseUrl}/api/v1/works/${CORRECTED_OPENALEX}?format=ris`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect([one.status, one.headers.get("content-type")]).toEqual([
      200,
      "application/x-research-info-systems; charset=utf-8",
    ]);
    expect(await one.text()).toContain(`DO  - ${CORRECTED_OPENALEX}`);
    const missing = await raw("/api/v1/works/10.9999/nowhere.1?format=ris", key);
    expect([missing.status, missing.body.error.code]).toEqual([404, "WORK_NOT_FOUND"]);
    expect((await raw(`/api/v1/works/${CORRECTED_OPENALEX}?format=xml`, key)).status).toBe(422);
    expect(ris).toMatch(/^N1 {2}- Integrity: retracted/m);
    expect(ris).not.toMatch(/^AB {2}-/m);
  });

  it("exports a kept search with the abstracts the works table keeps, over REST and MCP", async () => {
    const search = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "operator", query: "operator document hostile names", limit: 3 },
    });
    expect(search.status).toBe(200);
    const exported = await call("GET", `/api/v1/search/results/${search.body.queryId}?format=ris`, { key });
    expect(exported.status).toBe(200);
    expect(exported.body).toContain("AB  - Hostile names {and} braces & more\\here.");
    expect(exported.body).toContain("KW  - Hostile input");
    // a preview's export carries the abstract of the rows unlocked, and of no locked one
    const previewed = await call("POST", "/api/v1/search/preview", {
      key,
      body: { collection: "operator", query: "operator document hostile names", limit: 3 },
    });
    expect(previewed.status).toBe(200);
    const previewExport = async () =>
      (await call("GET", `/api/v1/search/results/${previewed.body.queryId}?format=ris`, { key })).body as string;
    expect(await previewExport()).toContain("KW  - Hostile input");
    expect(await previewExport()).not.toMatch(/^AB {2}-/m);
    const first = previewed.body.results[0].id as string;
    const unlocked = await call("POST", "/api/v1/search/unlock", {
      key,
      body: { queryId: previewed.body.queryId, resultIds: [first] },
    });
    expect(unlocked.status).toBe(200);
    expect(await previewExport()).toContain("AB  - Hostile names {and} braces & more\\here.");
    const client = new Client({ name: "screening-test", version: "0.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const tool = async (name: string, args: Record<string, unknown>) => {
        const res = await client.callTool({ name, arguments: args });
        return JSON.parse((res.content as { text: string }[])[0]!.text);
      };
      const content = (await tool("export_results", { queryId: search.body.queryId, format: "bibtex" })).content;
      expect(parseBibtex(content).entries[0]!.fields.abstract).toBe("Hostile names {and} braces & more\\here.");
      // the MCP tools take the same id forms
      expect(
        (await tool("get_work", { id: `https://pubmed.ncbi.nlm.nih.gov/${CORRECTED_OPENALEX_PMID}/` })).ids.doi,
      ).toBe(CORRECTED_OPENALEX);
      expect((await tool("work_references", { id: "https://doi.org/10.9999/trial.1" })).items[1].url).toBe(
        "https://openalex.org/W565331994",
      );
    } finally {
      await client.close();
    }
  });
});
