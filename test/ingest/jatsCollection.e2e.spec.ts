// A collection read by the jats reader on the real service (Temporal, PGlite, the embedded engine, the embedding
// model): ingested through the same path as the demo collections, searched with a question, filtered by section, and
// its figures delivered as images on unlock and on re-fetch from the files beside the XML.
import { cpSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { sliceDataRoot, startWithCustomer, type httpClient, type TestService } from "../support/testService.js";
import { plainCollection, writeCollectionsConfig } from "../support/operatorContent.js";

const QUESTION = "does vitamin D supplementation improve quadriceps strength in older adults";

interface Row {
  id: string;
  locked: boolean;
  text: string;
  figureCount?: number;
  metadata: {
    doc_id: string;
    section: string;
    title: string;
    figures?: Array<{ id: string; label: string; caption: string; image_data?: string }>;
  } & Record<string, unknown>;
}

const collectionsConfig = () =>
  writeCollectionsConfig([
    plainCollection("pmc-muscle", "jats", ["pmc/PMC9000001.xml", "pmc/pmc_articleset.xml"], {
      displayName: "PMC open-access muscle articles",
      description: "JATS fixtures",
      pricePer1000: "0.020",
    }),
  ]);

describe("a jats collection on the real service", () => {
  let svc: TestService;
  let call: ReturnType<typeof httpClient>;
  let key: string;

  beforeAll(async () => {
    const dataRoot = await sliceDataRoot(5);
    // the XML and its images, as an operator unpacks PMC's open-access packages under the data root
    cpSync(join(REPO_ROOT, "test", "fixtures", "jats"), join(dataRoot, "pmc"), { recursive: true });
    ({ svc, call, key } = await startWithCustomer({ dataRoot, collectionsConfig: collectionsConfig() }, "20.00"));
  }, 600_000);

  afterAll(async () => {
    await svc?.close();
  });

  it("answers a question with the trial's results section; delivers its figure on unlock and re-fetch", async () => {
    const preview = await call("POST", "/api/v1/search/preview", {
      key,
      body: { collection: "pmc-muscle", query: QUESTION, limit: 10 },
    });
    expect(preview.status).toBe(200);
    const rows = preview.body.results as Row[];
    // the trial and the review answer
    expect(rows.map((r) => r.metadata.doc_id)).toEqual(expect.arrayContaining(["PMC9000001", "PMC9000002"]));
    const best = rows[0]!;
    expect(best.metadata.doc_id).toBe("PMC9000001");
    const results = rows.find(
      (r) =>
        r.metadata.doc_id === "PMC9000001" &&
        r.metadata.section === "results" &&
        !/^Quadriceps strength rose/.test(r.text),
    );
    expect(results).toBeDefined();
    expect(results!.locked).toBe(true);

    const unlocked = await call("POST", "/api/v1/search/unlock", {
      key,
      body: {
        queryId: preview.body.queryId,
        resultIds: [results!.id],
        includeFigures: true,
        imageMaxWidth: 200,
        imageMaxHeight: 200,
      },
    });
    expect(unlocked.status).toBe(200);
    const row = (unlocked.body.results as Row[]).find((r) => r.id === results!.id)!;
    expect(row.locked).toBe(false);
    expect(row.text).toContain("a difference of 8.6 percentage points");
    expect(row.metadata).toMatchObject({
      section: "results",
      pmcid: "PMC9000001",
      doi: "10.5555/jgmr.2024.0117",
      license: "cc-by",
      publication_date: "2024-03-14",
      article_type: "research-article",
    });
    const [figure, ...others] = row.metadata.figures!;
    expect(others).toEqual([]);
    // the stored file name never reaches a client
    expect(Object.keys(figure!).sort()).toEqual(["caption", "id", "image_data", "label"]);
    expect(figure).toMatchObject({
      id: "fig1",
      label: "Figure 1",
      caption: expect.stringMatching(/^Change in quadriceps strength over 12 months\./),
    });
    const image = await sharp(Buffer.from(figure!.image_data!, "base64")).metadata();
    // the 240x160 JPEG beside the XML, fitted into 200x200
    expect([image.format, image.width, image.height]).toEqual(["jpeg", 200, 133]);

    const refetched = await call("GET", `/api/v1/search/results/${preview.body.queryId}?includeFigures=true`, { key });
    expect(refetched.status).toBe(200);
    const again = (refetched.body.results as Row[]).find((r) => r.id === results!.id)!;
    expect(again.metadata.figures).toEqual([
      { id: "fig1", label: "Figure 1", caption: figure!.caption, image_data: expect.any(String) },
    ]);
    expect((await sharp(Buffer.from(again.metadata.figures![0]!.image_data!, "base64")).metadata()).format).toBe(
      "jpeg",
    );
  });

  it("filters on the section the JATS <sec> gave", async () => {
    const res = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "pmc-muscle", query: QUESTION, limit: 10, filters: { section: "methods" } },
    });
    expect(res.status).toBe(200);
    const rows = res.body.results as Row[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.metadata.section === "methods")).toBe(true);
    expect(rows.map((r) => r.text).join(" ")).toContain("analysis of covariance");
  });
});
