// retractions/check: whether DOIs are retracted, with the notice's date, reasons and source, from the retraction
// list in force (the shipped lists ingestion excludes by, plus those an operator loaded since).
import { z } from "zod";
import { canonicalDoi } from "../../domain/identifiers.js";
import type { RetractionNotice } from "../../ingest/retractions.js";
import type { LiveRetractions } from "../../ingest/liveRetractions.js";
import { ToolError, type RegisteredTool } from "./toolRegistry.js";
import { toolInput } from "./toolInput.js";

const MAX_DOIS_PER_CHECK = 100;

const input = z.object({ dois: z.array(z.string()).min(1).max(MAX_DOIS_PER_CHECK) }).strict();

const retractionsCheckSchema = {
  type: "object",
  properties: {
    dois: {
      type: "array",
      items: { type: "string" },
      minItems: 1,
      maxItems: MAX_DOIS_PER_CHECK,
      description: "DOIs, bare (10.1000/xyz) or as https://doi.org/… or doi:…",
    },
  },
  required: ["dois"],
  additionalProperties: false,
};

interface RetractionCheck {
  /** as sent */
  input: string;
  /** canonical, lower-case */
  doi: string;
  retracted: boolean;
  /** present when retracted */
  notice?: {
    date: string | null;
    reasons: string[];
    source: RetractionNotice["source"];
    notice_doi: string | null;
    notice_type: string | null;
  };
}

export function retractionsCheckTool(list: Pick<LiveRetractions, "notices">): RegisteredTool {
  return {
    description:
      `Checks up to ${MAX_DOIS_PER_CHECK} DOIs against the retraction lists (Retraction Watch sample, ` +
      "open-retractions): for each, whether the work is retracted and the notice's date, reasons and source. A " +
      "malformed DOI fails the call.",
    inputSchema: retractionsCheckSchema,
    async handler({ payload }) {
      const { dois } = toolInput("retractions/check", input, payload);
      const canonical = dois.map((raw) => {
        const doi = canonicalDoi(raw);
        if (!doi)
          throw new ToolError(
            `retractions/check: "${raw}" is not a DOI (expected 10.<registrant>/<suffix>, optionally as https://doi.org/… or doi:…)`,
          );
        return doi;
      });
      const notices = await list.notices();
      const results = canonical.map((doi, i): RetractionCheck => {
        const notice = notices.get(doi);
        if (!notice) return { input: dois[i]!, doi, retracted: false };
        return {
          input: dois[i]!,
          doi,
          retracted: true,
          notice: {
            date: notice.date,
            reasons: notice.reasons,
            source: notice.source,
            notice_doi: notice.noticeDoi,
            notice_type: notice.noticeType,
          },
        };
      });
      return { results };
    },
  };
}
