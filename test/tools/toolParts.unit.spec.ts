// The gateway's configuration parsing, the Retraction Watch field readers and the shipped tools' answers to bad input,
// without I/O.
import { describe, expect, it } from "vitest";
import { toolPricesFrom, toolUpstreamsFrom } from "../../src/app/config.js";
import { retractionWatchDate, retractionWatchList, type RetractionNotice } from "../../src/ingest/retractions.js";
import { retractionsCheckTool } from "../../src/usecases/tools/retractionsCheck.js";
import { journalsLookupTool } from "../../src/usecases/tools/journalsLookup.js";
import { pricedRegistry } from "../../src/usecases/tools/shippedTools.js";
import { ToolError } from "../../src/usecases/tools/toolRegistry.js";
import type { JournalRecord } from "../../src/journals/table.js";

describe("TOOL_PRICES and TOOL_UPSTREAMS", () => {
  it("reads prices as micro-credits per prefix/tool and refuses malformed entries", () => {
    expect(toolPricesFrom("retractions/check=0.001, up/shout=2")).toEqual(
      new Map([
        ["retractions/check", 1_000n],
        ["up/shout", 2_000_000n],
      ]),
    );
    expect(toolPricesFrom(undefined).size).toBe(0);
    for (const bad of ["retractions=0.1", "a/b=-1", "a/b=0.0000001", "a/b", "a/b=1=2"])
      expect(() => toolPricesFrom(bad)).toThrow(/TOOL_PRICES/);
  });

  it("reads upstream mounts and refuses bad prefixes, URLs, unknown fields and a prefix mounted twice", () => {
    expect(toolUpstreamsFrom('[{"prefix":"pubmed","url":"http://127.0.0.1:9/mcp","authHeader":"Bearer x"}]')).toEqual([
      { prefix: "pubmed", url: "http://127.0.0.1:9/mcp", authHeader: "Bearer x" },
    ]);
    expect(toolUpstreamsFrom("")).toEqual([]);
    for (const bad of [
      "{}",
      "nope",
      '[{"prefix":"a--b","url":"http://x/mcp"}]',
      '[{"prefix":"a/b","url":"http://x/mcp"}]',
      '[{"prefix":"a","url":"not a url"}]',
      '[{"prefix":"a","url":"http://x","token":"t"}]',
      '[{"prefix":"a","url":"http://x"},{"prefix":"a","url":"http://y"}]',
    ]) {
      expect(() => toolUpstreamsFrom(bad), bad).toThrow(/TOOL_UPSTREAMS/);
    }
  });
});

describe("Retraction Watch fields", () => {
  it("reads M/D/YYYY dates and numpy-style reason lists", () => {
    expect(retractionWatchDate("2/2/2015 0:00")).toBe("2015-02-02");
    expect(retractionWatchDate("11/21/2023 0:00")).toBe("2023-11-21");
    expect(retractionWatchDate("")).toBeNull();
    expect(retractionWatchList("['+Concerns/Issues About Data'\n '+Paper Mill' \"+Author's Error\"]")).toEqual([
      "Concerns/Issues About Data",
      "Paper Mill",
      "Author's Error",
    ]);
    expect(retractionWatchList(undefined)).toEqual([]);
  });
});

describe("shipped tools on bad input", () => {
  const notice: RetractionNotice = {
    doi: "10.1/x",
    source: "retraction_watch",
    date: "2020-01-01",
    reasons: ["Paper Mill"],
    noticeDoi: null,
    noticeType: "Retraction",
  };
  const check = retractionsCheckTool({ notices: async () => new Map([[notice.doi, notice]]) });
  const call = (payload: unknown) => check.handler({ orgId: "o", keyId: "k", payload });

  it("answers retractions/check in input order with canonical DOIs", async () => {
    expect(await call({ dois: ["DOI:10.1/X", "10.2/y"] })).toEqual({
      results: [
        {
          input: "DOI:10.1/X",
          doi: "10.1/x",
          status: "retracted",
          retracted: true,
          notice: {
            date: "2020-01-01",
            reasons: ["Paper Mill"],
            source: "retraction_watch",
            notice_doi: null,
            notice_type: "Retraction",
          },
        },
        // no list names it and nothing says what a collection holds: unknown, never "not retracted"
        { input: "10.2/y", doi: "10.2/y", status: "unknown", retracted: null },
      ],
    });
  });

  it("throws ToolError (422 TOOL_ERROR) for every input it cannot use, the body shape included", async () => {
    for (const payload of [
      null,
      "x",
      [],
      {},
      { dois: [] },
      { dois: ["10.1/x"], extra: 1 },
      { dois: [42] },
      { dois: ["10.1/x", "nope"] },
    ]) {
      await expect(call(payload), JSON.stringify(payload)).rejects.toBeInstanceOf(ToolError);
    }
  });

  it("journals/lookup picks, for a title shared by rows, the row with the most works", async () => {
    const row = (issn: string, works: number | null): JournalRecord => ({
      issnL: issn,
      issns: [issn],
      title: "Same  Title",
      publisher: null,
      h_index: null,
      i10_index: null,
      two_yr_mean_citedness: null,
      impact_factor: null,
      works_count: works,
    });
    const lookup = journalsLookupTool([row("1111-1111", 3), row("2222-2222", 9), row("3333-3333", null)]);
    expect(await lookup.handler({ orgId: "o", keyId: "k", payload: { title: " same title " } })).toMatchObject({
      issn_l: "2222-2222",
    });
    await expect(
      lookup.handler({ orgId: "o", keyId: "k", payload: { issn: "1111-1111", title: "x" } }),
    ).rejects.toBeInstanceOf(ToolError);
  });

  it("prices a registry from TOOL_PRICES, leaving the others free", () => {
    const registry = pricedRegistry(
      { "retractions/check": check, "a/b": { ...check, priceMicros: 7n } },
      new Map([["retractions/check", 1_000n]]),
    );
    expect(registry.describe().map((d) => [d.name, d.priceMicros])).toEqual([
      ["retractions--check", 1_000n],
      ["a--b", 7n],
    ]);
  });
});
