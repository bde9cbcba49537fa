// journals/lookup: the journals-table row (the one filters and the catalogue read) with its metrics, by ISSN in any
// form or by title (case-insensitive, whitespace-insensitive, exact).
import { z } from "zod";
import { canonicalIssn } from "../../domain/identifiers.js";
import { journalLookupOf } from "../catalogue/discovery.js";
import type { JournalRecord } from "../../journals/table.js";
import { ToolError, type RegisteredTool } from "./toolRegistry.js";
import { toolInput } from "./toolInput.js";

const input = z.union(
  [z.object({ issn: z.string() }).strict(), z.object({ title: z.string().trim().min(1) }).strict()],
  {
    error: 'send exactly one of {"issn": "1234-5678"} or {"title": "…"}',
  },
);

const journalsLookupSchema = {
  type: "object",
  oneOf: [
    {
      properties: { issn: { type: "string", description: "ISSN: 1234-5678, 12345678 or 1234-567x" } },
      required: ["issn"],
      additionalProperties: false,
    },
    {
      properties: {
        title: { type: "string", minLength: 1, description: "journal title, matched whole, ignoring case" },
      },
      required: ["title"],
      additionalProperties: false,
    },
  ],
};

const titleKey = (title: string) => title.trim().replace(/\s+/g, " ").toLowerCase();

function rowOf(j: JournalRecord, metricsBasis: string | undefined) {
  return {
    issn_l: j.issnL,
    issns: j.issns,
    title: j.title,
    publisher: j.publisher,
    h_index: j.h_index,
    i10_index: j.i10_index,
    two_yr_mean_citedness: j.two_yr_mean_citedness,
    impact_factor: j.impact_factor,
    works_count: j.works_count,
    ...(metricsBasis ? { metrics_basis: metricsBasis } : {}),
  };
}

/** `metricsBasis`: the journals table's sentence saying what its metrics were computed from, sent with every row. */
export function journalsLookupTool(journals: readonly JournalRecord[], metricsBasis?: string): RegisteredTool {
  const byIssn = journalLookupOf(journals);
  // a title several rows share answers with the row that has the most works (the metrics are computed from them)
  const byTitle = new Map<string, JournalRecord>();
  for (const j of journals) {
    if (!j.title) continue;
    const key = titleKey(j.title);
    const known = byTitle.get(key);
    if (!known || (j.works_count ?? -1) > (known.works_count ?? -1)) byTitle.set(key, j);
  }
  return {
    description:
      "Looks a journal up in the journals table by ISSN (any form) or by exact title (ignoring case): its " +
      "ISSNs, publisher and metrics (h-index, i10-index, two-year mean citedness, impact factor, works " +
      "counted) and what those metrics were computed from.",
    inputSchema: journalsLookupSchema,
    async handler({ payload }) {
      const args = toolInput("journals/lookup", input, payload);
      if ("issn" in args) {
        const issn = canonicalIssn(args.issn);
        if (!issn)
          throw new ToolError(
            `journals/lookup: "${args.issn}" is not an ISSN (expected 1234-5678, 12345678 or 1234-567X)`,
          );
        const journal = byIssn(issn);
        if (!journal) throw new ToolError(`journals/lookup: no journal with ISSN ${issn} in the journals table`);
        return rowOf(journal, metricsBasis);
      }
      const journal = byTitle.get(titleKey(args.title));
      if (!journal)
        throw new ToolError(`journals/lookup: no journal titled "${args.title.trim()}" in the journals table`);
      return rowOf(journal, metricsBasis);
    },
  };
}
