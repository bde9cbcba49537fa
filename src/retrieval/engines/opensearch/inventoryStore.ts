// Collection inventories in OpenSearch: one more index holding a document per collection index, staged by ingest and
// written at commit, read back (cached by document version), and rebuilt from an index's first chunks when a commit
// changed its chunks without a new inventory.
import { InventoryTally, type CollectionInventory } from "../../../domain/inventory.js";
import { FIRST_CHUNKS, inventoryIndexBody, type IndexLayout } from "./indexMapping.js";
import { scanChunkMetadata } from "./chunkScan.js";
import type { Call } from "./transport.js";

/** The document stored per collection index in the inventory index (its id is the collection index's name). */
interface InventoryDocument {
  index: string;
  /** true when getInventory rebuilt it from the chunks of an index ingested without one */
  rebuilt: boolean;
  /**
   * null after a commit that changed the chunks without a new inventory: the marker that getInventory rebuilds one,
   * stored only if no commit wrote the document since it read the marker (so a rebuild from chunks a concurrent commit
   * replaced never outlives that commit)
   */
  inventory: CollectionInventory | null;
}

/** The stored inventory document's state: absent, a marker asking for a rebuild, or an inventory. */
interface StoredInventory {
  /** `if_seq_no=..&if_primary_term=..` of the document read, undefined when there is none */
  version: string | undefined;
  inventory: CollectionInventory | undefined;
}

interface GetResponseBody<T> {
  found?: boolean;
  _seq_no?: number;
  _primary_term?: number;
  _source?: T;
}

/**
 * Appended to the prefix for the inventory index; a catalogue name cannot start with "_", so no collection maps onto
 * it.
 */
const INVENTORY_INDEX_SUFFIX = "_inventory";
/** first chunks read per request when an inventory is rebuilt from an index */
const INVENTORY_SCAN_PAGE = 2_000;

export interface InventoryStore {
  /** the inventory index's name (no collection index may take it) */
  readonly index: string;
  /** an inventory for the collection index `name`, written at its next commit */
  stage(name: string, inventory: CollectionInventory): void;
  /**
   * At a commit of `name`: writes the staged inventory, else, when its chunks changed, a marker in place of the stored
   * one so that the next read rebuilds it.
   */
  commit(name: string, chunksChanged: boolean): Promise<void>;
  /** the stored inventory of `name`, rebuilt from its chunks (and stored) when there is none or a marker */
  get(name: string, collection: string): Promise<CollectionInventory>;
  /** forgets `name`: its staged, read and stored inventory */
  delete(name: string): Promise<void>;
}

export function createInventoryStore(call: Call, prefix: string, layout?: IndexLayout): InventoryStore {
  const inventoryIndex = `${prefix}${INVENTORY_INDEX_SUFFIX}`.toLowerCase();
  let inventoryIndexReady: Promise<void> | undefined;
  /** by collection index name: inventories put since the last commit */
  const stagedInventories = new Map<string, CollectionInventory>();
  /** inventories read, with the sequence number and primary term of the document they were read from */
  const readInventories = new Map<string, { version: string; inventory: CollectionInventory | undefined }>();

  function ensureInventoryIndex(): Promise<void> {
    inventoryIndexReady ??= call<{ error?: { type: string; reason: string } }>(
      "PUT",
      `/${inventoryIndex}`,
      inventoryIndexBody(layout),
      [400],
    ).then(({ body, statusCode }) => {
      if (statusCode === 400 && body.error?.type !== "resource_already_exists_exception") {
        throw new Error(
          `opensearch engine: creating ${inventoryIndex} failed: ${body.error?.type} ${body.error?.reason}`,
        );
      }
    });
    // a failed creation is tried again by the next write
    inventoryIndexReady.catch(() => {
      inventoryIndexReady = undefined;
    });
    return inventoryIndexReady;
  }

  /**
   * Writes the inventory document: `index` always; a rebuild only over the state it read (`create` when there was no
   * document, else the version of the marker it read), so it never replaces an ingest's inventory or a newer marker.
   */
  async function writeInventory(
    name: string,
    document: InventoryDocument,
    op: "index" | { over: string | undefined },
  ): Promise<void> {
    await ensureInventoryIndex();
    const condition = op === "index" ? "op_type=index" : op.over === undefined ? "op_type=create" : op.over;
    const { body, statusCode } = await call<{ error?: { type: string; reason: string } }>(
      "PUT",
      `/${inventoryIndex}/_doc/${encodeURIComponent(name)}?${condition}`,
      document,
      op === "index" ? [] : [409],
    );
    if (statusCode >= 400 && statusCode !== 409)
      throw new Error(`opensearch engine: writing the inventory of ${name} failed: ${body.error?.reason}`);
  }

  async function deleteInventory(name: string): Promise<void> {
    readInventories.delete(name);
    await call("DELETE", `/${inventoryIndex}/_doc/${encodeURIComponent(name)}`, undefined, [404]);
  }

  /**
   * The stored inventory document, its inventory read again only when the document changed since this engine last read
   * it.
   */
  async function storedInventory(name: string): Promise<StoredInventory> {
    const path = `/${inventoryIndex}/_doc/${encodeURIComponent(name)}`;
    const versionOf = (body: GetResponseBody<unknown>): string =>
      `if_seq_no=${body._seq_no}&if_primary_term=${body._primary_term}`;
    const { body: head, statusCode } = await call<GetResponseBody<never>>(
      "GET",
      `${path}?_source=false`,
      undefined,
      [404],
    );
    if (statusCode === 404 || !head.found) {
      readInventories.delete(name);
      return { version: undefined, inventory: undefined };
    }
    const known = readInventories.get(name);
    if (known?.version === versionOf(head)) return known;
    const { body, statusCode: fullStatus } = await call<GetResponseBody<InventoryDocument>>(
      "GET",
      path,
      undefined,
      [404],
    );
    if (fullStatus === 404 || !body.found || !body._source) return { version: undefined, inventory: undefined };
    const stored = { version: versionOf(body), inventory: body._source.inventory ?? undefined };
    readInventories.set(name, stored);
    return stored;
  }

  /** An inventory from the index's first chunks (chunk_index 0 carries its document's metadata). */
  async function rebuildInventory(index: string, name: string): Promise<CollectionInventory> {
    const tally = new InventoryTally();
    await scanChunkMetadata(
      call,
      name,
      { query: FIRST_CHUNKS, fields: ["issn", "journal", "publisher"], pageSize: INVENTORY_SCAN_PAGE },
      (metadata) => tally.add(metadata),
    );
    return tally.inventory(index);
  }

  return {
    index: inventoryIndex,

    stage(name, inventory) {
      stagedInventories.set(name, inventory);
    },

    async commit(name, chunksChanged) {
      const inventory = stagedInventories.get(name);
      if (inventory) {
        await writeInventory(name, { index: name, rebuilt: false, inventory }, "index");
        if (stagedInventories.get(name) === inventory) stagedInventories.delete(name);
      } else if (chunksChanged) {
        // the stored inventory no longer describes the chunks: a marker in its place has get() rebuild one
        // (written after the refresh, so a rebuild that read the chunks before it cannot be stored over it)
        readInventories.delete(name);
        await writeInventory(name, { index: name, rebuilt: false, inventory: null }, "index");
      }
    },

    async get(name, collection) {
      const stored = await storedInventory(name);
      if (stored.inventory) return stored.inventory;
      const rebuilt = await rebuildInventory(collection, name);
      await writeInventory(name, { index: name, rebuilt: true, inventory: rebuilt }, { over: stored.version });
      return rebuilt;
    },

    async delete(name) {
      stagedInventories.delete(name);
      await deleteInventory(name);
    },
  };
}
