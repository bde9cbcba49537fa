// Reads the collections configuration file (config/collections.json) for the composition root; the domain validates it.
import { readFile } from "node:fs/promises";
import {
  CollectionsConfigError,
  createCollectionCatalog,
  type CollectionCatalog,
} from "../domain/collectionDefinitions.js";

/** Reads and validates the collections configuration file (the composition root passes the path). */
export async function loadCollectionCatalog(path: string): Promise<CollectionCatalog> {
  const text = await readFile(path, "utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new CollectionsConfigError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  return createCollectionCatalog(raw);
}
