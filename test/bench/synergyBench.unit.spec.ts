// The SYNERGY figures of bench:quality: topical precision over a default search's rows, included works among them
// (each counted once), and included recall over the works the collection holds.
import { describe, expect, it } from "vitest";
import { synergyFigures, synergyTable, type SynergyQuery } from "../../bench/synergyBench.js";

const query = (form: "question" | "keywords", split: "fit" | "heldout"): SynergyQuery => ({
  id: `R/${split}/${form}`,
  review: "R",
  split,
  form,
  text: "a need",
});
const labels = new Map([
  ["R", { candidates: new Set(["W1", "W2", "W3", "W4"]), included: new Set(["W1", "W2", "W9"]) }],
]);
const held = new Set(["W1", "W2", "W3", "W4", "W5"]);

describe("SYNERGY figures", () => {
  it("reads rows for precision, counts an included work once however many rows it fills, recalls held works", () => {
    const rows = ["W1", "W1", "W3", "W5", "W2", "W6", "W4", "W4", "W7", "W8"];
    const ranking = ["W1", "W3", "W5", ...Array.from({ length: 40 }, (_, i) => `X${i}`), "W2"];
    const figures = synergyFigures([{ query: query("question", "fit"), rows, ranking }], labels, held);
    expect(figures.topicalPrecision10).toBe(0.6);
    expect(figures.includedWorksIn10Rows).toBe(2);
    // W9 is not in the collection: recall is over W1 and W2; W2 is 44th
    expect(figures.includedRecall30).toBe(0.5);
    expect(figures.includedRecall100).toBe(1);
  });

  it("splits the figures by query form and by form and split", () => {
    const answer = { rows: ["W1"], ranking: ["W1"] };
    const table = synergyTable(
      [
        { query: query("question", "fit"), ...answer },
        { query: query("question", "heldout"), rows: ["W6"], ranking: ["W6"] },
        { query: query("keywords", "heldout"), ...answer },
      ],
      labels,
      held,
    );
    expect(table.question!.queries).toBe(2);
    expect(table.question!.topicalPrecision10).toBe(0.5);
    expect(table["question/heldout"]!.topicalPrecision10).toBe(0);
    expect(table.keywords!.includedRecall30).toBe(0.5);
    expect(table["keywords/fit"]!.queries).toBe(0);
  });
});
