// retractions/check: whether DOIs are retracted, with the notice's date, reasons and source, from the retraction
// list in force (the shipped lists ingestion excludes by, plus those an operator loaded since) and, for a work a
// collection holds, by the one retraction rule (its own source's flag counts too, as search and integrity read it).
// A DOI no list names and no collection the key reaches holds is unknown, never "not retracted": the lists are
// samples, so their silence says nothing of a work.
import { z } from "zod";
import { canonicalDoi } from "../../domain/identifiers.js";
import type { RetractionNotice } from "../../ingest/retractions.js";
import type { LiveRetractions } from "../../ingest/liveRetractions.js";
import { ToolError, type RegisteredTool } from "./toolRegistry.js";
import { toolInput } from "./toolInput.js";
import type { Integrity, IntegritySource } from "../../domain/integrity.js";
import type { HeldIntegrity } from "../works/integrityRows.js";
import type { CollectionCatalog } from "../../domain/collectionDefinitions.js";
import { reachableCollections } from "../auth/keyScope.js";

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
  /**
   * retracted: a list or the work's own source says so; not_retracted: a collection the key reaches holds the work and
   * neither its source nor any list says so; unknown: no list names it and no collection the key reaches holds it
   */
  status: "retracted" | "not_retracted" | "unknown";
  /** true, false or, where the status is unknown, null */
  retracted: boolean | null;
  /** present when retracted */
  notice?: {
    date: string | null;
    reasons: string[];
    /** the list (retraction_watch, crossref) or, where no list names it, the work's own source (openalex, medline) */
    source: RetractionNotice["source"] | IntegritySource;
    notice_doi: string | null;
    notice_type: string | null;
  };
}

/** What answers a DOI no list names: the works the key's collections hold, with their integrity. */
interface SourceFlags {
  heldIntegrity: HeldIntegrity;
  catalog: CollectionCatalog;
}

export function retractionsCheckTool(list: Pick<LiveRetractions, "notices">, sources?: SourceFlags): RegisteredTool {
  return {
    description:
      `Checks up to ${MAX_DOIS_PER_CHECK} DOIs against the retraction lists (Retraction Watch sample, ` +
      "open-retractions) and, for a work a collection holds, its own source's flag (OpenAlex, MEDLINE): for each, " +
      "its status (retracted, not_retracted where a collection holds the work and nothing says so, unknown where " +
      "no list names it and no collection the key reaches holds it: the lists are samples) and a retraction's " +
      "notice date, reasons and source. A malformed DOI fails the call.",
    inputSchema: retractionsCheckSchema,
    async handler({ payload, keyScope }) {
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
      const unlisted = [...new Set(canonical.filter((doi) => !notices.has(doi)))];
      // only works the key's collections hold: whether another collection holds one is not the key's to learn
      const held = sources
        ? await sources.heldIntegrity("doi", unlisted, reachableCollections(sources.catalog, keyScope))
        : new Map<string, Integrity>();
      const results = canonical.map((doi, i): RetractionCheck => {
        const notice = notices.get(doi);
        const integrity = held.get(doi);
        if (!notice && integrity?.status === "retracted")
          return { input: dois[i]!, doi, status: "retracted", retracted: true, notice: sourceNotice(integrity) };
        if (!notice && integrity) return { input: dois[i]!, doi, status: "not_retracted", retracted: false };
        if (!notice) return { input: dois[i]!, doi, status: "unknown", retracted: null };
        return {
          input: dois[i]!,
          doi,
          status: "retracted",
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

/** A retracted work's notice as the check reports it: its source's retraction notice (the rule's reason). */
function sourceNotice(integrity: Integrity): NonNullable<RetractionCheck["notice"]> {
  const notice = integrity.notices.find((n) => n.type === "retraction") ?? integrity.notices[0];
  return {
    date: notice?.date ?? null,
    reasons: [],
    source: notice?.source ?? "openalex",
    notice_doi: notice?.doi ?? null,
    notice_type: notice?.type ?? "retraction",
  };
}
