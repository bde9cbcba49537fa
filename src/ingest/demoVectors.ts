// Where the demo collections' shipped vectors live in a data root, and the header the running pipeline expects of them.
import { join } from "node:path";
import type { Embedder } from "../embedding/port.js";
import { CHUNKER_VERSION } from "./chunk.js";
import { DEFAULT_EMBEDDING_INPUT_TOKENS, PIPELINE_VERSION } from "./pipelineRules.js";
import { readShippedVectors, staleReason, withShippedVectors, type ShippedVectorsHeader } from "./shippedVectors.js";

/** The file of precomputed passage vectors in a data root (scripts/demo-vectors.ts writes it). */
export const SHIPPED_VECTORS_FILE = (dataRoot: string): string => join(dataRoot, "vectors", "demo-passages.f16.bin");

/** What a shipped-vectors file must say to stand for this pipeline's vectors. */
export function expectedVectorsHeader(
  embedder: Pick<Embedder, "modelName" | "dims">,
): Omit<ShippedVectorsHeader, "count"> {
  return {
    embedding: embedder.modelName,
    dims: embedder.dims,
    chunker: CHUNKER_VERSION,
    pipeline: PIPELINE_VERSION,
    inputTokens: DEFAULT_EMBEDDING_INPUT_TOKENS,
  };
}

/**
 * The passage embedder answering from the data root's shipped vectors what they hold, when they were made by this
 * pipeline; otherwise (none shipped, or stale: `onStale` hears why) the embedder itself.
 */
export async function withDemoVectors(
  embedder: Embedder,
  dataRoot: string,
  onStale?: (reason: string) => void,
): Promise<Embedder> {
  const shipped = await readShippedVectors(SHIPPED_VECTORS_FILE(dataRoot));
  if (!shipped) return embedder;
  const stale = staleReason(shipped.header, expectedVectorsHeader(embedder));
  if (stale) {
    onStale?.(
      `the shipped vectors in ${SHIPPED_VECTORS_FILE(dataRoot)} are not used: ${stale} (rebuild them with npx ` +
        "tsx scripts/demo-vectors.ts)",
    );
    return embedder;
  }
  return withShippedVectors(embedder, shipped);
}
