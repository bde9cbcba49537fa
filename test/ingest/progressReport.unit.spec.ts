// Ingestion progress lines: counts out of totals, a rate and a finish time that is a clock time, never NaN or "/0";
// counts never go down; a log gets periodic lines, a terminal one line rewritten in place.
import { describe, expect, it } from "vitest";
import { createProgressReporter, progressLine } from "../../src/ingest/progressReport.js";

const AT = new Date("2026-11-28T10:00:00Z");

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { isTTY, chunks, write: (text: string) => (chunks.push(text), true) } as unknown as NodeJS.WritableStream & {
    isTTY: boolean;
    chunks: string[];
  };
}

describe("progressLine", () => {
  it("says the documents and chunks done out of the total, the rate and when it should be done", () => {
    expect(
      progressLine(
        { collection: "scifact", documents: { done: 1000, total: 5183 }, chunks: { done: 1960, total: null } },
        10,
        AT,
      ),
    ).toBe("scifact: 1,000/5,183 documents, 1,960 chunks · 100 documents/s · done about 10:00:42 (in 42 s)");
    expect(progressLine({ collection: "scifact", chunks: { done: 300, total: 10144 } }, 60, AT)).toBe(
      "scifact: 300/10,144 chunks · 5.0 chunks/s · done about 10:32:49 (in 32 min 49 s)",
    );
  });

  it("shows no rate, total or time it does not know yet", () => {
    expect(progressLine({ collection: "c", documents: { done: 0, total: null } }, 3, AT)).toBe("c: reading the source");
    expect(
      progressLine({ collection: "c", documents: { done: 0, total: 0 }, chunks: { done: 0, total: null } }, 0, AT),
    ).toBe("c: 0 documents, 0 chunks");
    for (const line of [
      progressLine({ collection: "c", documents: { done: 5, total: 10 } }, 0, AT),
      progressLine({ collection: "c", documents: { done: 10, total: 10 } }, 4, AT),
    ]) {
      expect(line).not.toMatch(/NaN|Infinity|\/0\b|undefined/);
    }
  });
});

describe("createProgressReporter", () => {
  it("never shows a count lower than one shown before, and logs a line every interval and at the finish", () => {
    let now = AT.getTime();
    const stream = sink(false);
    const reporter = createProgressReporter({ stream, logIntervalMs: 5000, now: () => new Date(now) });
    reporter.update({ collection: "scifact", documents: { done: 768, total: null } });
    now += 1000;
    // a batch reporting late: within the interval, not printed
    reporter.update({ collection: "scifact", documents: { done: 512, total: 5183 } });
    now += 5000;
    reporter.update({ collection: "scifact", documents: { done: 600, total: 5183 } });
    reporter.finish("scifact", "5,183 documents, 10,144 chunks");
    expect(stream.chunks).toHaveLength(3);
    expect(stream.chunks[0]).toBe("scifact: 768 documents\n");
    expect(stream.chunks[1]).toMatch(
      /^scifact: 768\/5,183 documents · 128 documents\/s · done about 10:00:40 \(in 34 s\)\n$/,
    );
    expect(stream.chunks[2]).toBe("scifact: 5,183 documents, 10,144 chunks in 6 s\n");
  });

  it("rewrites one line in place on a terminal", () => {
    const stream = sink(true);
    const reporter = createProgressReporter({ stream, now: () => AT });
    reporter.update({ collection: "a", chunks: { done: 1, total: 2 } });
    reporter.update({ collection: "a", chunks: { done: 2, total: 2 } });
    reporter.finish("a", "2 chunks");
    expect(stream.chunks.slice(0, 2).every((c) => c.startsWith("\r\x1b[2K") && !c.includes("\n"))).toBe(true);
    expect(stream.chunks.at(-1)).toBe("a: 2 chunks in 1 s\n");
  });
});
