// A bi-encoder as a relevance model: the cosine of the query's and each passage's embedding, read on its own worker
// thread for the judge's shortlist (title and chunk, at most the manifest's maxTokens).
import { createOnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import { dotProduct } from "../../src/retrieval/fusion.js";
import type { RelevanceModel } from "./crossEncoder.js";

export async function createBiEncoderRelevance(manifestPath: string): Promise<RelevanceModel> {
  const embedder = await createOnnxEmbedder({ manifest: manifestPath, workers: 1, threads: 2 });
  return {
    modelName: embedder.modelName,
    async score(query, passages) {
      if (passages.length === 0) return [];
      const [queryVector, vectors] = await Promise.all([
        embedder.embedQuery(query),
        embedder.embedPassages([...passages]),
      ]);
      return vectors.map((v) => dotProduct(queryVector, v, 0, v.length));
    },
    close: () => embedder.close(),
  };
}
