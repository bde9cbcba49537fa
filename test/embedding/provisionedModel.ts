// Locates the provisioned embedding model for the embedding suites; they fail (never skip) when it is missing.
import { homedir } from 'node:os';
import { loadModelManifest, resolveModelManifestPath, type ModelManifest } from '../../src/embedding/modelManifest.js';

export const manifestPath = resolveModelManifestPath(process.env, homedir());

/** Rejects with "embedding model not provisioned: run npm run provision" when provisioning has not run. */
export function loadProvisionedManifest(): Promise<ModelManifest> {
  return loadModelManifest(manifestPath);
}
