// The catalogue's rules: which collections and meta-collections exist, as a fold of the catalogue stream, and what
// defining, changing or retiring one may do. Pure: evolve(state, event) and decide(state, command) -> events.
import type { CollectionDefinition, DomainEvent, MetaCollectionDefinition } from "./events.js";
import { Rejection } from "./rejection.js";

/**
 * First path segments of the search API's fixed routes (/api/v1/search/{segment}): a collection so named would be
 * shadowed by the route (POST /api/v1/search/query is the cross-collection search, never a collection called "query").
 * test/collections/catalogueDecider.unit.spec.ts checks that the search router's fixed routes are refused as names.
 */
const RESERVED_COLLECTION_NAMES: readonly string[] = [
  "collections",
  "query",
  "preview",
  "unlock",
  "results",
  "journal-requests",
  "assisted",
  "quota",
];

export interface CatalogueState {
  /** the catalogue stream's version this state folds (0: nothing defined yet, a first start seeds it) */
  version: number;
  /** plain collections in force, in the order they were defined */
  collections: Map<string, { definition: CollectionDefinition; seeded: boolean }>;
  metaCollections: Map<string, MetaCollectionDefinition>;
  /**
   * names of retired collections and meta-collections: reserved for good, since their query records still name them
   */
  retired: Set<string>;
  /** when each retired collection was retired (the event's time), by name */
  retiredAt: Map<string, string>;
}

export function emptyCatalogue(): CatalogueState {
  return { version: 0, collections: new Map(), metaCollections: new Map(), retired: new Set(), retiredAt: new Map() };
}

/**
 * Applies one catalogue event (events of other types leave the state as it is); a stored event's time is when a
 * collection was retired. Mutates and returns `state`.
 */
export function evolveCatalogue(state: CatalogueState, event: DomainEvent & { recordedAt?: string }): CatalogueState {
  switch (event.type) {
    case "CollectionDefined":
      state.collections.set(event.data.collection.name, {
        definition: event.data.collection,
        seeded: event.data.seeded,
      });
      break;
    case "CollectionChanged": {
      const current = state.collections.get(event.data.collection.name);
      if (current) current.definition = event.data.collection;
      break;
    }
    case "CollectionRetired":
      state.collections.delete(event.data.name);
      state.retired.add(event.data.name);
      if (event.recordedAt) state.retiredAt.set(event.data.name, event.recordedAt);
      break;
    case "MetaCollectionDefined":
      state.metaCollections.set(event.data.name, event.data);
      break;
    case "MetaCollectionRetired":
      state.metaCollections.delete(event.data.name);
      state.retired.add(event.data.name);
      if (event.recordedAt) state.retiredAt.set(event.data.name, event.recordedAt);
      break;
    default:
      break;
  }
  return state;
}

export type CatalogueCommand =
  /** a first start: the configuration file's collections and meta-collections, recorded once */
  | { type: "SeedCatalogue"; collections: CollectionDefinition[]; metaCollections: MetaCollectionDefinition[] }
  | { type: "DefineCollection"; definition: CollectionDefinition }
  /**
   * what an operator may change in place: names, description and price (the content's definition is fixed at its name)
   */
  | {
      type: "ChangeCollection";
      name: string;
      change: Partial<Pick<CollectionDefinition, "displayName" | "description" | "pricePer1000">>;
    }
  | { type: "RetireCollection"; name: string }
  | { type: "DefineMetaCollection"; definition: MetaCollectionDefinition }
  /** its searches answer 404 from then on; its members stay as they are */
  | { type: "RetireMetaCollection"; name: string };

/** The entry a name (any case) denotes, for messages and conflicts. */
function holderOf(
  state: CatalogueState,
  name: string,
): { kind: "collection" | "meta-collection" | "retired collection"; name: string } | null {
  const lower = name.toLowerCase();
  for (const existing of state.collections.keys())
    if (existing.toLowerCase() === lower) return { kind: "collection", name: existing };
  for (const existing of state.metaCollections.keys())
    if (existing.toLowerCase() === lower) return { kind: "meta-collection", name: existing };
  for (const existing of state.retired)
    if (existing.toLowerCase() === lower) return { kind: "retired collection", name: existing };
  return null;
}

function assertNameFree(state: CatalogueState, name: string): void {
  if (RESERVED_COLLECTION_NAMES.includes(name.toLowerCase())) {
    throw new Rejection(
      "VALIDATION_ERROR",
      `name: "${name}" is a fixed route of the search API (/api/v1/search/${name.toLowerCase()}); choose another name`,
      { field: "name" },
    );
  }
  const holder = holderOf(state, name);
  if (holder?.kind === "retired collection") {
    throw new Rejection(
      "CONFLICT",
      `"${holder.name}" was retired; names are not reused, since its query records still name ` +
        "it. Choose another name",
      { name: holder.name },
    );
  }
  if (holder)
    throw new Rejection("CONFLICT", `a ${holder.kind} named "${holder.name}" exists; choose another name`, {
      name: holder.name,
    });
}

function liveCollection(state: CatalogueState, name: string): CollectionDefinition {
  const entry = state.collections.get(name);
  if (entry) return entry.definition;
  const holder = holderOf(state, name);
  if (holder?.kind === "collection") return state.collections.get(holder.name)!.definition;
  if (holder?.kind === "meta-collection")
    throw new Rejection(
      "VALIDATION_ERROR",
      `"${holder.name}" is a meta-collection; this changes plain collections (PUT /admin/v1/meta-collections/` +
        `${holder.name} changes it, DELETE retires it)`,
    );
  if (holder?.kind === "retired collection")
    throw new Rejection("COLLECTION_NOT_FOUND", `collection "${holder.name}" was retired`);
  throw new Rejection("COLLECTION_NOT_FOUND", `no collection is named "${name}"; GET /admin/v1/collections lists them`);
}

function checkMembers(state: CatalogueState, definition: MetaCollectionDefinition): string[] {
  if (new Set(definition.members.map((m) => m.toLowerCase())).size !== definition.members.length) {
    throw new Rejection("VALIDATION_ERROR", "members: a collection is listed twice", { field: "members" });
  }
  return definition.members.map((member) => {
    const holder = holderOf(state, member);
    if (holder?.kind === "collection") return holder.name;
    const why =
      holder?.kind === "meta-collection"
        ? "is a meta-collection (members are plain collections)"
        : holder?.kind === "retired collection"
          ? "was retired"
          : "does not exist";
    throw new Rejection(
      "VALIDATION_ERROR",
      `members: "${member}" ${why}; GET /admin/v1/collections lists the collections`,
      { field: "members" },
    );
  });
}

export function decideCatalogue(state: CatalogueState, command: CatalogueCommand): DomainEvent[] {
  switch (command.type) {
    case "SeedCatalogue":
      // seeding happens once, on an empty catalogue; a later start finds it seeded and records nothing
      if (state.version > 0) return [];
      return [
        ...command.collections.map((collection): DomainEvent => ({
          type: "CollectionDefined",
          data: { collection, seeded: true },
        })),
        ...command.metaCollections.map((meta): DomainEvent => ({ type: "MetaCollectionDefined", data: meta })),
      ];
    case "DefineCollection":
      assertNameFree(state, command.definition.name);
      return [{ type: "CollectionDefined", data: { collection: command.definition, seeded: false } }];
    case "ChangeCollection": {
      const current = liveCollection(state, command.name);
      const changed = {
        ...current,
        ...Object.fromEntries(Object.entries(command.change).filter(([, v]) => v !== undefined)),
      };
      if (JSON.stringify(changed) === JSON.stringify(current)) return [];
      return [{ type: "CollectionChanged", data: { collection: changed } }];
    }
    case "RetireCollection": {
      const current = liveCollection(state, command.name);
      const metas = [...state.metaCollections.values()]
        .filter((meta) => meta.members.includes(current.name))
        .map((meta) => meta.name);
      if (metas.length > 0) {
        throw new Rejection(
          "CONFLICT",
          `collection "${current.name}" is a member of ${metas.map((m) => `"${m}"`).join(", ")}; change ` +
            `${metas.length === 1 ? "that meta-collection" : "those meta-collections"} first (PUT ` +
            "/admin/v1/meta-collections/{name}) or retire it (DELETE, the same path)",
          { metaCollections: metas },
        );
      }
      if (state.collections.size === 1)
        throw new Rejection(
          "CONFLICT",
          `collection "${current.name}" is the last one; the catalogue keeps at least one collection (add ` +
            "another first)",
        );
      return [{ type: "CollectionRetired", data: { name: current.name } }];
    }
    case "DefineMetaCollection": {
      const { definition } = command;
      const holder = holderOf(state, definition.name);
      if (holder && holder.kind !== "meta-collection") assertNameFree(state, definition.name);
      if (!holder) assertNameFree(state, definition.name);
      if (definition.members.length < 2)
        throw new Rejection("VALIDATION_ERROR", "members: a meta-collection merges at least two collections", {
          field: "members",
        });
      const members = checkMembers(state, definition);
      const meta: MetaCollectionDefinition = { ...definition, name: holder?.name ?? definition.name, members };
      const current = state.metaCollections.get(meta.name);
      if (current && JSON.stringify(current) === JSON.stringify(meta)) return [];
      return [{ type: "MetaCollectionDefined", data: meta }];
    }
    case "RetireMetaCollection": {
      const holder = holderOf(state, command.name);
      if (holder?.kind === "meta-collection") return [{ type: "MetaCollectionRetired", data: { name: holder.name } }];
      if (holder?.kind === "collection")
        throw new Rejection(
          "VALIDATION_ERROR",
          `"${holder.name}" is a plain collection, not a meta-collection (DELETE /admin/v1/collections/` +
            `${holder.name} retires it); nothing was changed`,
        );
      if (holder?.kind === "retired collection")
        throw new Rejection("COLLECTION_NOT_FOUND", `"${holder.name}" was retired already`, {
          collection: holder.name,
          retired: true,
        });
      throw new Rejection(
        "COLLECTION_NOT_FOUND",
        `no meta-collection is named "${command.name}"; GET /admin/v1/collections lists them`,
      );
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled catalogue command ${JSON.stringify(unhandled)}`);
    }
  }
}
