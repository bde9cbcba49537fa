// Locates the provisioned embedding model for the embedding suites; they fail (never skip) when it is missing.
import { cacheDirFrom } from '../../src/config.js';
import { loadModelManifest, modelManifestPath, type ModelManifest } from '../../src/embedding/modelManifest.js';

export const manifestPath = modelManifestPath(cacheDirFrom(process.env));

/** Rejects with "embedding model not provisioned: run npm run provision" when provisioning has not run. */
export function loadProvisionedManifest(): Promise<ModelManifest> {
  return loadModelManifest(manifestPath);
}
