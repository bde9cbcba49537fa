// A query record's payload is deflated on a thread of its own, to the bytes the HTTP thread would have made.
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { deflateText } from "../../src/usecases/search/payloadDeflate.js";

const payloadText = (i: number) =>
  JSON.stringify({
    query: `query ${i} with "quotes", ünïcödé and a NUL \u0000`,
    rows: Array.from({ length: 12 }, (_, r) => ({ id: `scifact:${i}:${r}`, text: `row ${r} of ${i} `.repeat(80 + i) })),
  });

describe("deflateText", () => {
  it("gives the bytes of deflateRawSync at level 1, each to its own caller, many at once", async () => {
    const texts = Array.from({ length: 40 }, (_, i) => payloadText(i));
    const deflated = await Promise.all(texts.map((text) => deflateText(text)));
    for (const [i, bytes] of deflated.entries()) {
      expect(Buffer.compare(bytes, deflateRawSync(texts[i]!, { level: 1 }))).toBe(0);
      expect(inflateRawSync(bytes).toString("utf8")).toBe(texts[i]);
    }
  });

  it("deflates the empty text and a large one", async () => {
    const large = payloadText(7).repeat(200);
    for (const text of ["", large]) expect(inflateRawSync(await deflateText(text)).toString("utf8")).toBe(text);
  });
});
