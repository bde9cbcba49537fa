// The catalogue's rules, given the events so far, when a command, then the events (or the refusal): defining,
// changing and retiring collections and meta-collections.
import { describe, expect, it } from "vitest";
import {
  decideCatalogue,
  emptyCatalogue,
  evolveCatalogue,
  type CatalogueCommand,
  type CatalogueState,
} from "../../src/domain/catalogueStream.js";
import type { CollectionDefinition, DomainEvent } from "../../src/domain/events.js";
import { SEARCH_ROUTES } from "../../src/http/routes/searchRoutes.js";
import { deciderSpec } from "../support/deciderSpec.js";

const plain = (name: string, extra: Partial<CollectionDefinition> = {}): CollectionDefinition => ({
  name,
  displayName: name.toUpperCase(),
  description: null,
  kind: "scholarly",
  retrieval: "sparse",
  pricePer1000: "0.050",
  openAccessOnly: false,
  scanFilterable: false,
  excludeRetracted: true,
  source: { reader: "jsonl", files: [`${name}.jsonl`] },
  ...extra,
});

const defined = (name: string): DomainEvent => ({
  type: "CollectionDefined",
  data: { collection: plain(name), seeded: false },
});

/** The catalogue stream folded from its first event: each event's version is its place in the stream. */
const given = deciderSpec<CatalogueState, CatalogueCommand, DomainEvent>({
  initialState: emptyCatalogue,
  evolve: (state, event) => Object.assign(evolveCatalogue(state, event), { version: state.version + 1 }),
  decide: (command, state) => decideCatalogue(state, command),
});

describe("the catalogue decider", () => {
  it("seeds an empty catalogue once, with the file's collections and meta-collections", () => {
    const seed: CatalogueCommand = {
      type: "SeedCatalogue",
      collections: [plain("a"), plain("b")],
      metaCollections: [{ name: "ab", displayName: "AB", description: null, members: ["a", "b"] }],
    };
    given([])
      .when(seed)
      .then([
        { type: "CollectionDefined", data: { collection: plain("a"), seeded: true } },
        { type: "CollectionDefined", data: { collection: plain("b"), seeded: true } },
        {
          type: "MetaCollectionDefined",
          data: { name: "ab", displayName: "AB", description: null, members: ["a", "b"] },
        },
      ]);
    given([defined("a")])
      .when(seed)
      .thenNothing();
  });

  it("defines a collection under a free name, and refuses a taken, retired or reserved one", () => {
    given([defined("a")])
      .when({ type: "DefineCollection", definition: plain("b") })
      .then([{ type: "CollectionDefined", data: { collection: plain("b"), seeded: false } }]);
    const taken = given([defined("a")])
      .when({ type: "DefineCollection", definition: plain("A") })
      .thenRefuses("CONFLICT");
    expect(taken.message).toContain('"a"');
    const retired = given([defined("a"), defined("b"), { type: "CollectionRetired", data: { name: "a" } }])
      .when({ type: "DefineCollection", definition: plain("a") })
      .thenRefuses("CONFLICT");
    expect(retired.message).toMatch(/retired/);
    const reserved = given([defined("a")])
      .when({ type: "DefineCollection", definition: plain("query") })
      .thenRefuses("VALIDATION_ERROR");
    expect(reserved.message).toContain("/api/v1/search/query");
  });

  it("reserves every fixed route of the search API", () => {
    // the paths the search API's router is built from
    const fixed = new Set(
      SEARCH_ROUTES.map((route) => route.path.replace(/^\/api\/v1\/search\/?/, "").split("/")[0]!).filter(
        (segment) => segment !== "" && !segment.startsWith(":"),
      ),
    );
    expect(fixed).toContain("query");
    for (const segment of fixed) {
      const refused = given([defined("a")])
        .when({ type: "DefineCollection", definition: plain(segment) })
        .thenRefuses("VALIDATION_ERROR");
      expect(refused.message).toContain(`/api/v1/search/${segment}`);
    }
  });

  it("retires a collection no meta-collection lists, never the last one, and 404s what is unknown or retired", () => {
    const history = [
      defined("a"),
      defined("b"),
      defined("c"),
      {
        type: "MetaCollectionDefined",
        data: { name: "ab", displayName: "AB", description: null, members: ["a", "b"] },
      } as DomainEvent,
    ];
    given(history)
      .when({ type: "RetireCollection", name: "C" })
      .then([{ type: "CollectionRetired", data: { name: "c" } }]);
    const listed = given(history).when({ type: "RetireCollection", name: "a" }).thenRefuses("CONFLICT");
    expect(listed.details).toEqual({ metaCollections: ["ab"] });
    given([defined("a")])
      .when({ type: "RetireCollection", name: "a" })
      .thenRefuses("CONFLICT");
    given(history).when({ type: "RetireCollection", name: "zzz" }).thenRefuses("COLLECTION_NOT_FOUND");
    given([...history, { type: "CollectionRetired", data: { name: "c" } }])
      .when({ type: "RetireCollection", name: "c" })
      .thenRefuses("COLLECTION_NOT_FOUND");
    given(history).when({ type: "RetireCollection", name: "ab" }).thenRefuses("VALIDATION_ERROR");
  });

  it("retires a meta-collection, which frees its members and keeps its name from being reused", () => {
    const meta = { name: "ab", displayName: "AB", description: null, members: ["a", "b"] };
    const history = [defined("a"), defined("b"), { type: "MetaCollectionDefined", data: meta } as DomainEvent];
    given(history)
      .when({ type: "RetireMetaCollection", name: "AB" })
      .then([{ type: "MetaCollectionRetired", data: { name: "ab" } }]);
    const retired = [...history, { type: "MetaCollectionRetired", data: { name: "ab" } } as DomainEvent];
    // its members were held by it; now the first of them retires, and the name "ab" is never defined again
    given(retired)
      .when({ type: "RetireCollection", name: "a" })
      .then([{ type: "CollectionRetired", data: { name: "a" } }]);
    expect(
      given(retired).when({ type: "DefineMetaCollection", definition: meta }).thenRefuses("CONFLICT").message,
    ).toMatch(/"ab" was retired; names are not reused/);
    given(retired).when({ type: "RetireMetaCollection", name: "ab" }).thenRefuses("COLLECTION_NOT_FOUND");
    given(history).when({ type: "RetireMetaCollection", name: "zzz" }).thenRefuses("COLLECTION_NOT_FOUND");
    expect(
      given(history).when({ type: "RetireMetaCollection", name: "a" }).thenRefuses("VALIDATION_ERROR").message,
    ).toMatch(/plain collection.*DELETE \/admin\/v1\/collections\/a/);
    const state = retired.reduce(evolveCatalogue, emptyCatalogue());
    expect([...state.metaCollections.keys()]).toEqual([]);
    expect(state.retired.has("ab")).toBe(true);
  });

  it("changes names, description and price in place, and records nothing when nothing changes", () => {
    given([defined("a")])
      .when({ type: "ChangeCollection", name: "A", change: { pricePer1000: "0.100", description: "new" } })
      .then([
        {
          type: "CollectionChanged",
          data: { collection: { ...plain("a"), pricePer1000: "0.100", description: "new" } },
        },
      ]);
    given([defined("a")])
      .when({ type: "ChangeCollection", name: "a", change: { pricePer1000: "0.050" } })
      .thenNothing();
  });

  it("defines and changes meta-collections over live plain collections only", () => {
    const history = [
      defined("a"),
      defined("b"),
      defined("c"),
      { type: "CollectionRetired", data: { name: "c" } } as DomainEvent,
    ];
    const meta = { name: "ab", displayName: "AB", description: null, members: ["A", "b"] };
    given(history)
      .when({ type: "DefineMetaCollection", definition: meta })
      .then([{ type: "MetaCollectionDefined", data: { ...meta, members: ["a", "b"] } }]);
    const changed = [
      ...history,
      { type: "MetaCollectionDefined", data: { ...meta, members: ["a", "b"] } } as DomainEvent,
    ];
    given(changed)
      .when({ type: "DefineMetaCollection", definition: { ...meta, members: ["a", "b"] } })
      .thenNothing();
    expect(
      given(changed).when({ type: "DefineMetaCollection", definition: { ...meta, displayName: "A and B" } }).events,
    ).toHaveLength(1);
    expect(
      given(history)
        .when({ type: "DefineMetaCollection", definition: { ...meta, members: ["a", "c"] } })
        .thenRefuses("VALIDATION_ERROR").message,
    ).toMatch(/"c" was retired/);
    given(history)
      .when({ type: "DefineMetaCollection", definition: { ...meta, members: ["a", "a"] } })
      .thenRefuses("VALIDATION_ERROR");
    given(history)
      .when({ type: "DefineMetaCollection", definition: { ...meta, members: ["a"] } })
      .thenRefuses("VALIDATION_ERROR");
    given(history)
      .when({ type: "DefineMetaCollection", definition: { ...meta, name: "a" } })
      .thenRefuses("CONFLICT");
    expect(
      given(changed)
        .when({ type: "DefineMetaCollection", definition: { ...meta, members: ["ab", "a"] } })
        .thenRefuses("VALIDATION_ERROR").message,
    ).toMatch(/meta-collection/);
  });
});
