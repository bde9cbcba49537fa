// A second bi-encoder as a relevance model: the cosine of the query's and each passage's embedding, read with
// bge-small-en-v1.5 (scripts/provision-judge-models.sh writes judge-embedder.json, in the embedding model's manifest
// format). It is not the index's embedding model: it reads only the judge's shortlist, on its own worker thread.
import { join } from 'node:path';
import { createOnnxEmbedder } from '../embedding/onnxEmbedder.js';
import { dotProduct } from '../search/fusion.js';
import type { RelevanceModel } from './crossEncoder.js';

/** Where provisioning writes judge-embedder.json in the cache directory (config.cacheDir). */
export const judgeEmbedderManifestPath = (cacheDir: string): string => join(cacheDir, 'judge-embedder.json');

export async function createBiEncoderRelevance(manifestPath: string): Promise<RelevanceModel> {
  const embedder = await createOnnxEmbedder({ manifest: manifestPath, workers: 1, threads: 2 });
  return {
    modelName: embedder.modelName,
    async score(query, passages) {
      if (passages.length === 0) return [];
      const [queryVector, vectors] = await Promise.all([embedder.embedQuery(query), embedder.embedPassages([...passages])]);
      return vectors.map((v) => dotProduct(queryVector, v, 0, v.length));
    },
    close: () => embedder.close(),
  };
}
