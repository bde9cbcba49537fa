// Locates the provisioned embedding model for the embedding suites; they fail (never skip) when it is missing.
import { cacheDirFrom } from "../../src/app/config.js";
import {
  embeddingModelManifestPath,
  loadModelManifest,
  type ModelManifest,
} from "../../src/embedding/modelManifest.js";
import { modelManifestPath } from "../support/modelFiles.js";

export const manifestPath = modelManifestPath(cacheDirFrom(process.env));

/** Rejects with "embedding model not provisioned: run npm run provision" when provisioning has not run. */
export function loadProvisionedManifest(): Promise<ModelManifest> {
  return loadModelManifest(manifestPath);
}

/**
 * The service's embedding model (bge-small-en-v1.5, float32 over its int8 weights): what the index, the queries and the
 * judge's features use.
 */
export function loadServiceModelManifest(): Promise<ModelManifest> {
  return loadModelManifest(embeddingModelManifestPath(cacheDirFrom(process.env)));
}
