// The collections catalogue: validation, case-insensitive resolution, members and meta-collection price ranges.
import { describe, expect, it } from "vitest";
import {
  CollectionsConfigError,
  createCollectionCatalog,
  formatPricePer1000,
  pricePer1000Micros,
} from "../../src/domain/collectionDefinitions.js";
import { loadCollectionCatalog } from "../../src/app/collectionsFile.js";
import { DEFAULT_COLLECTIONS_CONFIG } from "../../src/app/config.js";
import type { MetaCollection } from "../../src/domain/collectionDefinitions.js";

function plain(name: string, pricePer1000: string, kind: "scholarly" | "editorial" = "scholarly") {
  return {
    name,
    displayName: name.toUpperCase(),
    description: null,
    kind,
    retrieval: "hybrid",
    pricePer1000,
    openAccessOnly: false,
    scanFilterable: true,
    source: { reader: "beir", files: [`${name}/corpus.jsonl`] },
  };
}

const config = {
  collections: [plain("alpha", "0.050"), plain("beta", "0.03"), plain("gamma", "0.120000", "editorial")],
  metaCollections: [
    { name: "all-of-it", displayName: "All of it", description: "everything", members: ["alpha", "beta", "gamma"] },
    { name: "same-price", displayName: "Same price", description: null, members: ["alpha", "alpha-twin"] },
  ],
};
config.collections.push(plain("alpha-twin", "0.050"));

describe("collection catalogue", () => {
  const catalog = createCollectionCatalog(config);
  const meta = (name: string): MetaCollection => {
    const entry = catalog.resolveCollection(name);
    if (entry?.type !== "meta") throw new Error(`${name} is not a meta-collection`);
    return entry;
  };

  it("resolves plain and meta collections case-insensitively", () => {
    expect(catalog.resolveCollection("ALPHA")).toMatchObject({ type: "plain", name: "alpha" });
    expect(catalog.resolveCollection(" Beta ")).toMatchObject({ type: "plain", name: "beta" });
    expect(catalog.resolveCollection("All-Of-It")).toMatchObject({
      type: "meta",
      name: "all-of-it",
      members: ["alpha", "beta", "gamma"],
    });
    expect(catalog.resolveCollection("delta")).toBeNull();
  });

  it("defaults retraction exclusion to scholarly collections", () => {
    expect(catalog.resolveCollection("alpha")).toMatchObject({ excludeRetracted: true });
    expect(catalog.resolveCollection("gamma")).toMatchObject({ excludeRetracted: false });
  });

  it("lists the physical members of a meta-collection, and a plain collection as its own member", () => {
    expect(catalog.physicalMembers(meta("all-of-it")).map((c) => c.name)).toEqual(["alpha", "beta", "gamma"]);
    const alpha = catalog.resolveCollection("alpha")!;
    expect(catalog.physicalMembers(alpha)).toEqual([alpha]);
  });

  it("gives the lowest and highest member price per 1000 tokens", () => {
    expect(catalog.priceRange(meta("all-of-it"))).toEqual({ min: "0.030", max: "0.120", per: "1000 tokens" });
    expect(catalog.priceRange(meta("same-price"))).toEqual({ min: "0.050", max: "0.050", per: "1000 tokens" });
  });

  it("gives a null range when any member price is unresolved, never a range from a subset", () => {
    const withoutBeta = catalog.priceRange(meta("all-of-it"), (member) =>
      member.name === "beta" ? null : member.pricePer1000,
    );
    expect(withoutBeta).toBeNull();
    const organizationPrices = catalog.priceRange(
      meta("all-of-it"),
      (member) => ({ alpha: "0.2", beta: "0.0015", gamma: "1" })[member.name] ?? null,
    );
    expect(organizationPrices).toEqual({ min: "0.0015", max: "1.000", per: "1000 tokens" });
  });

  it("converts prices to micro-credits for billing", () => {
    expect(pricePer1000Micros(catalog.collections[0]!)).toBe(50_000n);
    expect(formatPricePer1000(123_456n)).toBe("0.123456");
  });

  it("rejects unknown members, duplicate names and malformed prices with every issue listed", () => {
    const broken = {
      collections: [plain("alpha", "0,05"), plain("alpha", "0.01")],
      metaCollections: [{ name: "m", displayName: "M", description: null, members: ["alpha", "nope"] }],
    };
    expect(() => createCollectionCatalog(broken)).toThrow(CollectionsConfigError);
    try {
      createCollectionCatalog(broken);
    } catch (error) {
      expect((error as Error).message).toMatch(/pricePer1000/);
      expect((error as Error).message).toMatch(/duplicate collection name "alpha"/);
      expect((error as Error).message).toMatch(/"nope", which is not a plain collection/);
    }
    // what a source file may name (relative, inside the data root, a regular file) is the operator-file guard's to
    // say, at definition and at every read: test/ingest/operatorFiles.unit.spec.ts
  });
});

describe("config/collections.json", () => {
  it("loads and holds the demo collections the service promises", async () => {
    const catalog = await loadCollectionCatalog(DEFAULT_COLLECTIONS_CONFIG);
    const plainCollections = catalog.collections;
    expect(
      plainCollections.some((c) => c.kind === "scholarly" && c.source.reader === "openalex" && !c.openAccessOnly),
    ).toBe(true);
    expect(
      plainCollections.some((c) => c.source.reader === "beir" && c.source.files.includes("scifact/corpus.jsonl")),
    ).toBe(true);
    expect(plainCollections.some((c) => c.kind === "editorial")).toBe(true);
    expect(plainCollections.some((c) => c.openAccessOnly)).toBe(true);
    const metas = catalog.metaCollections.filter((m) => {
      const range = catalog.priceRange(m);
      return range !== null && range.min !== range.max;
    });
    expect(metas.length).toBeGreaterThan(0);
  });
});
