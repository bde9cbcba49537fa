// More like this: a work named by its doc_id, DOI, PMID or OpenAlex id, found in the collections the key reaches, and
// turned into what a search near it needs (its chunks' mean vector, its title and opening text, and how to leave it
// out).
import type { CollectionCatalog } from "../../domain/collectionDefinitions.js";
import { canonicalDoi, canonicalPmid } from "../../domain/identifiers.js";
import { Rejection } from "../../domain/rejection.js";
import type { FilterNode } from "../../filters/ast.js";
import { withoutRetracted, type LiveRetractions } from "../../ingest/liveRetractions.js";
import type { ChunkRecord, SearchEngine } from "../../retrieval/port.js";
import type { AuthContext } from "../auth/context.js";
import { reachableCollections } from "../auth/keyScope.js";
import type { LikeTarget } from "./pipeline.js";

/** The most chunks of the work read for its vector (a long full text is represented by its first ones). */
const WORK_CHUNKS = 64;
/** The text searched on sparse collections: the title and the opening of the work, cut at a word (a query's length). */
const LIKE_TEXT_CHARS = 1000;

/**
 * The metadata condition an identifier names: a DOI, `pmid:…`, or else a doc_id (an OpenAlex W-id is the doc_id of
 * OpenAlex works).
 */
export function workCondition(id: string): FilterNode {
  const trimmed = id.trim();
  const pmid = /^pmid:\s*(.+)$/i.exec(trimmed);
  if (pmid) {
    const value = canonicalPmid(pmid[1]!);
    if (!value)
      throw new Rejection("VALIDATION_ERROR", `like.work: "${trimmed}" is not a PubMed id; send pmid:12345678`, {
        field: "like.work",
      });
    return { kind: "eq", field: "pmid", value };
  }
  const doi = canonicalDoi(trimmed);
  if (doi) return { kind: "eq", field: "doi", value: doi };
  const openAlex = /^(?:https?:\/\/openalex\.org\/)?(W\d{1,12})$/i.exec(trimmed);
  return { kind: "eq", field: "doc_id", value: openAlex ? openAlex[1]!.toUpperCase() : trimmed };
}

/**
 * The first chunk each collection named holds under its condition (none where the condition is undefined or the
 * collection has no index), in the order named: the collections holding a work, first holder first.
 */
export async function holdingChunks(
  engine: Pick<SearchEngine, "findChunks" | "hasIndex">,
  names: readonly string[],
  conditionOf: (name: string) => FilterNode | undefined,
): Promise<({ name: string; chunk: ChunkRecord } | undefined)[]> {
  return Promise.all(
    names.map(async (name) => {
      const condition = conditionOf(name);
      if (condition === undefined || !(await engine.hasIndex(name))) return undefined;
      const [chunk] = await engine.findChunks(name, condition, 1);
      return chunk ? { name, chunk } : undefined;
    }),
  );
}

function meanVector(chunks: readonly ChunkRecord[]): Float32Array | undefined {
  const vectors = chunks.map((c) => c.vector).filter((v): v is Float32Array => v !== undefined && v.length > 0);
  if (vectors.length === 0) return undefined;
  const sum = new Float32Array(vectors[0]!.length);
  for (const v of vectors) for (let i = 0; i < sum.length; i++) sum[i]! += v[i]!;
  const norm = Math.hypot(...sum);
  if (norm === 0) return undefined;
  for (let i = 0; i < sum.length; i++) sum[i]! /= norm;
  return sum;
}

function likeText(chunks: readonly ChunkRecord[]): string {
  const ordered = [...chunks].sort((a, b) => a.metadata.chunk_index - b.metadata.chunk_index);
  const title = typeof ordered[0]?.metadata.title === "string" ? ordered[0].metadata.title : "";
  const text = `${title} ${ordered.map((c) => c.text).join(" ")}`.replace(/\s+/g, " ").trim();
  return text.length <= LIKE_TEXT_CHARS ? text : text.slice(0, LIKE_TEXT_CHARS).replace(/\s+\S*$/, "");
}

interface LikeDeps {
  catalog: CollectionCatalog;
  engine: Pick<SearchEngine, "findChunks" | "hasIndex">;
  retractions?: Pick<LiveRetractions, "exclusionFilter">;
}

/**
 * The work `id` names, from the first collection the key reaches that holds it (in catalogue order); 404
 * WORK_NOT_FOUND when none does, so a work held only outside the key's scope answers like one held nowhere.
 */
export async function resolveLike(deps: LikeDeps, auth: AuthContext, id: string): Promise<LikeTarget> {
  const condition = workCondition(id);
  const retracted = await deps.retractions?.exclusionFilter();
  const holders = await holdingChunks(deps.engine, reachableCollections(deps.catalog, auth.key.collections), (name) => {
    const plain = deps.catalog.resolveCollection(name);
    const scoped = plain?.type === "plain" ? withoutRetracted(plain, condition, retracted) : condition;
    return scoped === "skip" ? undefined : scoped;
  });
  const found = holders.find((h) => h !== undefined);
  if (!found)
    throw new Rejection(
      "WORK_NOT_FOUND",
      `no collection this key can reach holds the work "${id.trim()}"; send a result's metadata.doc_id, a ` +
        "DOI, pmid:NNN or an OpenAlex W-id",
    );
  const docId = found.chunk.metadata.doc_id;
  const chunks = await deps.engine.findChunks(found.name, { kind: "eq", field: "doc_id", value: docId }, WORK_CHUNKS);
  const holder = { name: found.name, docId, chunks: chunks.length > 0 ? chunks : [found.chunk] };
  const first = holder.chunks.find((c) => c.metadata.chunk_index === 0) ?? holder.chunks[0]!;
  const doi =
    typeof first.metadata.doi === "string" && first.metadata.doi !== "" ? first.metadata.doi.toLowerCase() : null;
  const pmid = typeof first.metadata.pmid === "string" && first.metadata.pmid !== "" ? first.metadata.pmid : null;
  const vector = meanVector(holder.chunks);
  return {
    work: id.trim(),
    collection: holder.name,
    docId: holder.docId,
    title: typeof first.metadata.title === "string" ? first.metadata.title : null,
    text: likeText(holder.chunks),
    ...(vector ? { vector } : {}),
    // the work itself, wherever it is held: by its doc_id where found, and by its DOI or PMID everywhere
    exclude: (physical) => {
      const same: FilterNode[] = [];
      if (physical === holder.name) same.push({ kind: "eq", field: "doc_id", value: holder.docId });
      if (doi) same.push({ kind: "eq", field: "doi", value: doi });
      if (pmid) same.push({ kind: "eq", field: "pmid", value: pmid });
      return same.length === 0 ? { kind: "none" } : same.length === 1 ? same[0]! : { kind: "or", children: same };
    },
  };
}
