// The embedded engine's staged changes: upserts and deletions held beside the committed segment, invisible to
// searches until the next commit (indexLifecycle.ts).
import type { ChunkRecord } from "../../port.js";
import { chunkFingerprint } from "../../chunkFingerprint.js";
import { sparseFieldValues } from "../../fusion.js";
import { analyzeEnglish } from "../../../text/englishAnalyzer.js";
import { countTerms } from "./indexSegment.js";
import type { IndexState } from "./indexState.js";

/**
 * Whether the change a running commit writes touches this id (so the committed segment is not its latest version).
 */
function inflightTouches(state: IndexState, id: string): boolean {
  return state.inflight !== undefined && (state.inflight.pending.has(id) || state.inflight.deletions.has(id));
}

export function stageDeletion(state: IndexState, id: string): void {
  state.pending.delete(id);
  if (state.segment.ordinalById.has(id) || inflightTouches(state, id)) state.deletions.add(id);
}

export function upsert(state: IndexState, chunk: ChunkRecord): void {
  if (chunk.vector && chunk.vector.length !== state.dims) {
    throw new Error(
      `embedded engine: chunk ${chunk.id} has a ${chunk.vector.length}-dim vector, index "${state.name}" ` +
        `has ${state.dims}`,
    );
  }
  const fingerprint = chunkFingerprint(chunk);
  state.deletions.delete(chunk.id);
  const ordinal = state.segment.ordinalById.get(chunk.id);
  if (
    ordinal !== undefined &&
    state.segment.chunks[ordinal].fingerprint === fingerprint &&
    !inflightTouches(state, chunk.id)
  ) {
    // identical to what is indexed: drop any different pending version and change nothing
    state.pending.delete(chunk.id);
    return;
  }
  if (state.pending.get(chunk.id)?.chunk.fingerprint === fingerprint) return;
  const { termFreqs, length } = countTerms(sparseFieldValues(chunk).flatMap(analyzeEnglish));
  state.pending.set(chunk.id, {
    chunk: { id: chunk.id, text: chunk.text, tokens: chunk.tokens, metadata: chunk.metadata, fingerprint },
    vector: chunk.vector ? Float32Array.from(chunk.vector) : undefined,
    termFreqs,
    length,
  });
}
