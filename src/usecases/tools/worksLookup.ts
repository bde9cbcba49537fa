// works/lookup: a work's metadata by DOI or PMID from the collections the calling key can reach, through the
// retrieval port; a work held only outside the key's scope is reported like one held nowhere (scope is not disclosed).
import { z } from "zod";
import type { CollectionCatalog } from "../../domain/collectionDefinitions.js";
import { reachableCollections } from "../auth/keyScope.js";
import { canonicalDoi, canonicalPmid } from "../../domain/identifiers.js";
import type { ChunkMetadata, SearchEngine } from "../../retrieval/port.js";
import { ToolError, type RegisteredTool } from "./toolRegistry.js";
import { toolInput } from "./toolInput.js";
import { withoutRetracted, type LiveRetractions } from "../../ingest/liveRetractions.js";
import type { FilterNode } from "../../filters/ast.js";
import type { Authorship } from "../../domain/authors.js";
import type { RetractedHeld } from "../works/integrityRows.js";

const input = z.union(
  [z.object({ doi: z.string() }).strict(), z.object({ pmid: z.union([z.string(), z.number()]) }).strict()],
  {
    error: 'send exactly one of {"doi": "10.…"} or {"pmid": "12345"}',
  },
);

const worksLookupSchema = {
  type: "object",
  oneOf: [
    {
      properties: { doi: { type: "string", description: "DOI, bare or as https://doi.org/… or doi:…" } },
      required: ["doi"],
      additionalProperties: false,
    },
    {
      properties: { pmid: { type: ["string", "integer"], description: "PubMed id" } },
      required: ["pmid"],
      additionalProperties: false,
    },
  ],
};

interface WorkMetadata {
  title: string | null;
  authors: string[];
  /** the authors with their OpenAlex ids and ORCIDs, as works and rows carry them (empty where the source has none) */
  authorships: Authorship[];
  journal: string | null;
  publisher: string | null;
  issn: string[];
  publication_date: string | null;
  article_type: string | null;
  doi: string | null;
  pmid: string | null;
  /** the collections (reachable by the key) that hold the work */
  collections: string[];
}

const text = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : null);
const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function workOf(metadata: ChunkMetadata, collections: string[]): WorkMetadata {
  return {
    title: text(metadata.title),
    authors: list(metadata.authors),
    authorships: Array.isArray(metadata.authorships) ? metadata.authorships : [],
    journal: text(metadata.journal),
    publisher: text(metadata.publisher),
    issn: list(metadata.issn),
    publication_date: text(metadata.publication_date),
    article_type: text(metadata.article_type),
    doi: text(metadata.doi),
    pmid: text(metadata.pmid),
    collections,
  };
}

export function worksLookupTool(deps: {
  engine: Pick<SearchEngine, "findChunks" | "hasIndex">;
  catalog: CollectionCatalog;
  retractions?: Pick<LiveRetractions, "exclusionFilter">;
  retractedHeld?: RetractedHeld;
}): RegisteredTool {
  return {
    description:
      "Looks a work up by DOI or PMID in the collections the calling key can reach: title, authors (with " +
      "their OpenAlex ids and ORCIDs), journal, " +
      "publication date, identifiers and the collections holding it. A work no reachable collection holds is a " +
      "tool error.",
    inputSchema: worksLookupSchema,
    async handler({ payload, keyScope }) {
      const args = toolInput("works/lookup", input, payload);
      let field: "doi" | "pmid";
      let value: string | null;
      if ("doi" in args) [field, value] = ["doi", canonicalDoi(args.doi)];
      else [field, value] = ["pmid", canonicalPmid(args.pmid)];
      if (!value)
        throw new ToolError(
          `works/lookup: ${JSON.stringify("doi" in args ? args.doi : args.pmid)} is not a ` +
            `${field === "doi" ? "DOI" : "PubMed id"}`,
        );
      const filter = { kind: "eq" as const, field, value };
      // a work retracted by a list loaded since its collection was ingested is no longer held there, as in a search
      const retracted = await deps.retractions?.exclusionFilter();
      const reachable = reachableCollections(deps.catalog, keyScope);
      const held = await Promise.all(
        reachable.map(async (collection) => {
          if (!(await deps.engine.hasIndex(collection))) return { collection, chunks: [] };
          const plain = deps.catalog.resolveCollection(collection);
          const scoped = plain?.type === "plain" ? withoutRetracted(plain, filter, retracted) : filter;
          return { collection, chunks: await deps.engine.findChunks(collection, scoped as FilterNode, 16) };
        }),
      );
      const holders = held.filter((h) => h.chunks.length > 0);
      const named = `${field === "doi" ? "DOI" : "PMID"} ${value}`;
      if (holders.length === 0 && (await deps.retractedHeld?.(field, [value], reachable))?.has(value))
        throw new ToolError(
          `works/lookup: ${named} is retracted, and retracted works are kept out of search and this lookup; ` +
            `GET /api/v1/works/${field === "pmid" ? "pmid:" : ""}${value} gives its record and retraction notices`,
        );
      if (holders.length === 0) throw new ToolError(`works/lookup: no collection this key can reach holds ${named}`);
      // the first chunk of the work carries the same metadata as the others; prefer chunk 0 of the first holder
      const chunks = holders[0]!.chunks;
      const first = chunks.find((c) => c.metadata.chunk_index === 0) ?? chunks[0]!;
      return workOf(first.metadata, holders.map((h) => h.collection).sort());
    },
  };
}
