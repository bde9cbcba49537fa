// What `npm run bench:ingest --engines ... --workers ...` measures: shapes per engine, and bad lists refused.
import { describe, expect, it } from "vitest";
import { ingestShapes } from "../../bench/ingestShapes.js";

describe("bench:ingest shapes", () => {
  it("measures OpenSearch once per worker process count and the embedded engine once, in-process", () => {
    expect(ingestShapes("embedded,opensearch", "1,2")).toEqual([
      { engine: "embedded", workerProcesses: 0 },
      { engine: "opensearch", workerProcesses: 1 },
      { engine: "opensearch", workerProcesses: 2 },
    ]);
    expect(ingestShapes("opensearch", "0, 2,2")).toEqual([
      { engine: "opensearch", workerProcesses: 0 },
      { engine: "opensearch", workerProcesses: 2 },
    ]);
  });

  it("refuses a count or an engine it cannot run, naming the fix", () => {
    expect(() => ingestShapes("opensearch", "two")).toThrow(
      /--workers takes a comma-separated list .* e\.g\. --workers 1,2; got "two"/,
    );
    expect(() => ingestShapes("opensearch", "1,-1")).toThrow(/--workers/);
    expect(() => ingestShapes("opensearch", "")).toThrow(/--workers/);
    expect(() => ingestShapes("elastic", "1")).toThrow(/--engines takes embedded and\/or opensearch.*got "elastic"/);
  });
});
