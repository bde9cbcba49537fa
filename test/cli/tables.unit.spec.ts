// The CLI's list commands print aligned tables a person reads (JSON with --json): columns padded to their widest cell,
// one line a row whatever the names hold, long cells cut, "(none)" for an empty list.
import { describe, expect, it } from "vitest";
import { printList, renderTable } from "../../src/app/cli/tables.js";

describe("CLI tables", () => {
  it("aligns columns under upper-case headings, one line a row, never broken by a control character or newline", () => {
    const out = renderTable(
      [
        { a: "x", b: 1 },
        { a: "longer\nname", b: null },
      ],
      [
        { heading: "name", cell: (r) => r.a },
        { heading: "n", cell: (r) => r.b },
      ],
    );
    expect(out.split("\n")).toEqual(["NAME         N", "x            1", "longer name  -"]);
    expect(renderTable([], [{ heading: "name", cell: (r) => r.a }])).toBe("(none)");
    expect(renderTable([{ a: "y".repeat(100) }], [{ heading: "a", cell: (r) => r.a }]).split("\n")[1]).toHaveLength(60);
  });

  it("prints collections, meta-collections and retired names as a table; --json prints the API answer", () => {
    const list = {
      catalogueVersion: 3,
      collections: [
        {
          name: "reef-notes",
          state: "ready",
          documentCount: 3,
          retrieval: "hybrid",
          pricePer1000: "0.020",
          displayName: "Reef notes",
          lastIngestion: { state: "completed", startedAt: "2026-11-27T10:00:00Z", finishedAt: "2026-11-27T10:00:05Z" },
        },
      ],
      metaCollections: [{ name: "all-reefs", members: ["reef-notes", "openalex-synergy"], displayName: "All reefs" }],
      retired: ["old-notes"],
    };
    const lines = printList("collection list", list, false).split("\n");
    expect(lines[0]).toBe("Collections");
    expect(lines[1]).toMatch(/^NAME +STATE +DOCUMENTS +RETRIEVAL +PRICE\/1000 +LAST INGESTION +DISPLAY NAME$/);
    expect(lines[2]).toMatch(/^reef-notes +ready +3 +hybrid +0\.020 +completed 2026-11-27T10:00:05Z +Reef notes$/);
    expect(lines).toContain("all-reefs  reef-notes,openalex-synergy  All reefs");
    expect(lines.at(-1)).toBe("Retired: old-notes");
    expect(JSON.parse(printList("collection list", list, true))).toEqual(list);
    // each list command prints a table (an empty one says "(none)"); any other command's answer prints as JSON
    for (const command of ["org list", "collection list", "member list", "price list", "journal-requests"])
      expect(printList(command, {}, false), command).toContain("(none)");
    expect(printList("org create", {}, false)).toBe("{}");
  });
});
