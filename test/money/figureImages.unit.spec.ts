import { describe, expect, it } from "vitest";
import {
  planFigureImages,
  renderPlannedImages,
  metadataWithFigures,
  responseFigures,
} from "../../src/usecases/figures/figureImages.js";
import type { CachedRow } from "../../src/domain/resultRow.js";

function row(id: string, figures: number): CachedRow {
  return {
    id,
    collection: "c",
    physical: "c",
    text: "t",
    teaser: "t...",
    metadata: {
      chunk_index: 0,
      doc_id: id,
      figures: Array.from({ length: figures }, (_, i) => ({
        id: `${id}-f${i}`,
        label: `Figure ${i + 1}`,
        caption: "x",
      })),
    },
    relevance: 0.5,
    tokens: 10,
    costMicros: "1",
    pricePer1000Micros: "100",
    figureCount: figures,
  };
}

describe("figure image budget", () => {
  const rows = [row("a", 30), row("b", 30), row("c", 30), row("locked", 5)];
  const unlocked = new Set(["a", "b", "c"]);

  it("gives the requested ids the budget first, then other unlocked rows in result order, at most 50 images", () => {
    const plan = planFigureImages(rows, unlocked, ["c"]);
    expect([...plan.keys()]).toEqual(["c", "a"]);
    expect(plan.get("c")).toHaveLength(30);
    expect(plan.get("a")).toHaveLength(20);
    expect([...plan.values()].reduce((s, f) => s + f.length, 0)).toBe(50);
  });

  it("never spends the budget on locked rows, and without priorities follows result order", () => {
    const plan = planFigureImages(rows, unlocked, ["locked"]);
    expect(plan.has("locked")).toBe(false);
    expect([...plan.keys()]).toEqual(["a", "b"]);
  });

  it("renders the planned figures with the image options, and renders nothing without a renderer", async () => {
    const seen: string[] = [];
    const plan = planFigureImages([row("a", 2)], new Set(["a"]), []);
    const images = await renderPlannedImages(
      { render: async (_r, f, o) => (seen.push(`${f.id}@${o.maxWidth}`), `img:${f.id}`) },
      [row("a", 2)],
      plan,
      { maxWidth: 300, maxHeight: 200, quality: 50 },
    );
    expect(seen).toEqual(["a-f0@300", "a-f1@300"]);
    expect(images.get("a")?.get("a-f1")).toBe("img:a-f1");
    expect(
      (await renderPlannedImages(undefined, [row("a", 2)], plan, { maxWidth: 300, maxHeight: 200, quality: 50 })).size,
    ).toBe(0);
  });

  it("shows figures without their stored path, image_data only where an image was rendered, or leaves them out", () => {
    const metadata = {
      chunk_index: 3,
      doc_id: "d",
      figures: [
        { id: "f1", label: "Figure 1", caption: "c1", path: "d-1.png" },
        { id: "f2", label: "Figure 2", caption: "c2", path: "d-2.png" },
      ],
    };
    const images = new Map([["f2", "img2"]]);
    expect(responseFigures(metadata.figures, images)).toEqual([
      { id: "f1", label: "Figure 1", caption: "c1" },
      { id: "f2", label: "Figure 2", caption: "c2", image_data: "img2" },
    ]);
    expect(metadataWithFigures(metadata, true, images)).toEqual({
      chunk_index: 3,
      doc_id: "d",
      figures: responseFigures(metadata.figures, images),
    });
    expect(metadataWithFigures(metadata, false, images)).toEqual({ chunk_index: 3, doc_id: "d" });
    expect(metadataWithFigures({ chunk_index: 0, doc_id: "e" }, true)).toEqual({ chunk_index: 0, doc_id: "e" });
  });
});
