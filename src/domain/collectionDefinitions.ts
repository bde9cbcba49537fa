// The collection definitions: validates config/collections.json's content and answers name, member and price questions.
import { join } from "node:path";
import { z } from "zod";
import { formatCredits, parseCredits } from "./money.js";
import { Rejection } from "./rejection.js";
import { didYouMean } from "./didYouMean.js";
import type { CollectionDefinition } from "./events.js";

const collectionName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'lower-case letters, digits, "-" and "_", starting with a letter or digit');

const pricePer1000 = z
  .string()
  .regex(/^\d{1,6}(\.\d{1,6})?$/, 'a decimal string of credits per 1000 tokens, e.g. "0.050"');

/**
 * A source file's name; what it may name (relative, inside the data root, a regular file) is the operator-file guard's
 * rule, checked where the file is named and again where it is read, with one answer for define and ingest.
 */
const relativeDataPath = z.string().min(1).max(1000);

/** The most characters of the operator's text that customers are shown (the catalogue, the dashboard). */
const DISPLAY_NAME_MAX = 200;
const DESCRIPTION_MAX = 2000;
const displayName = z.string().min(1).max(DISPLAY_NAME_MAX, `at most ${DISPLAY_NAME_MAX} characters`);
const description = z.string().max(DESCRIPTION_MAX, `at most ${DESCRIPTION_MAX} characters`).nullable();

/**
 * Which reader turns the source files into documents; `medline-editorial` adds the derived editorial fields; `jsonl`
 * reads any corpus written one document a line with the spec's metadata field names (src/ingest/jsonlReader.ts);
 * `jats` reads PMC open-access article XML with its sections and figures (src/ingest/jatsReader.ts).
 */
const SOURCE_READERS = ["beir", "openalex", "medline", "medline-editorial", "jsonl", "jats"] as const;
export type SourceReader = (typeof SOURCE_READERS)[number];

const sourceSchema = z.strictObject({
  reader: z.enum(SOURCE_READERS),
  files: z.array(relativeDataPath).min(1).max(1000),
});

export const plainCollectionSchema = z.strictObject({
  $comment: z.string().optional(),
  name: collectionName,
  displayName,
  description,
  kind: z.enum(["scholarly", "editorial"]),
  retrieval: z.enum(["dense", "sparse", "hybrid"]),
  pricePer1000,
  openAccessOnly: z.boolean(),
  scanFilterable: z.boolean(),
  /** drop retracted articles at ingestion; defaults to true for scholarly collections (the spec's rule) */
  excludeRetracted: z.boolean().optional(),
  /** draw generated demo figures for chunks at ingestion (src/ingest/figures/demoFigures.ts) */
  demoFigures: z.boolean().optional(),
  source: sourceSchema,
});

const metaCollectionSchema = z.strictObject({
  $comment: z.string().optional(),
  name: collectionName,
  displayName,
  description,
  members: z.array(collectionName).min(2),
});

const collectionsConfigSchema = z
  .strictObject({
    $comment: z.string().optional(),
    collections: z.array(plainCollectionSchema).min(1),
    metaCollections: z.array(metaCollectionSchema),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    const all = [...config.collections, ...config.metaCollections];
    for (const entry of all) {
      if (seen.has(entry.name)) ctx.addIssue({ code: "custom", message: `duplicate collection name "${entry.name}"` });
      seen.add(entry.name);
    }
    const plainNames = new Set(config.collections.map((c) => c.name));
    for (const meta of config.metaCollections) {
      for (const member of meta.members) {
        if (!plainNames.has(member)) {
          ctx.addIssue({
            code: "custom",
            message: `meta-collection "${meta.name}" names "${member}", which is not a plain collection`,
          });
        }
      }
      if (new Set(meta.members).size !== meta.members.length) {
        ctx.addIssue({ code: "custom", message: `meta-collection "${meta.name}" lists a member twice` });
      }
    }
  });

export type PlainCollectionConfig = z.infer<typeof plainCollectionSchema>;
type MetaCollectionConfig = z.infer<typeof metaCollectionSchema>;

export interface PlainCollection extends Omit<PlainCollectionConfig, "$comment"> {
  readonly type: "plain";
  readonly excludeRetracted: boolean;
}

export interface MetaCollection extends Omit<MetaCollectionConfig, "$comment"> {
  readonly type: "meta";
}

export type CatalogEntry = PlainCollection | MetaCollection;

export interface PriceRange {
  min: string;
  max: string;
  per: "1000 tokens";
}

/** Price of one plain collection as a decimal string, or null when it cannot be resolved (e.g. no org price). */
type CollectionPriceResolver = (collection: PlainCollection) => string | null;

export interface CollectionCatalog {
  readonly collections: readonly PlainCollection[];
  readonly metaCollections: readonly MetaCollection[];
  /** plain or meta collection by name, case-insensitively; null when unknown */
  resolveCollection(name: string): CatalogEntry | null;
  /** the plain collections a search of `entry` reaches: the members of a meta-collection, or the collection itself */
  physicalMembers(entry: CatalogEntry): PlainCollection[];
  /** lowest and highest member price; null when any member's price is unresolved (never a range from a subset) */
  priceRange(meta: MetaCollection, priceOf?: CollectionPriceResolver): PriceRange | null;
  /**
   * a retired collection by name, case-insensitively: its name and when it was retired; null when no collection of
   * that name was retired (a catalogue of the store knows; a configuration file's has none)
   */
  retiredAt?(name: string): { name: string; at: string } | null;
}

export class CollectionsConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CollectionsConfigError";
  }
}

/** Validates a parsed configuration object and builds the catalogue; throws CollectionsConfigError with every issue. */
export function createCollectionCatalog(raw: unknown): CollectionCatalog {
  const parsed = collectionsConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
    throw new CollectionsConfigError(`invalid collections configuration:\n  ${issues.join("\n  ")}`);
  }
  return buildCatalog(
    parsed.data.collections.map(({ $comment: _comment, ...config }) => plainCollectionOf(config)),
    parsed.data.metaCollections.map(({ $comment: _comment, ...config }) => ({ ...config, type: "meta" })),
  );
}

/**
 * A validated definition as the catalogue holds it: excludeRetracted resolved (true for scholarly collections unless
 * said).
 */
export function plainCollectionOf(config: Omit<PlainCollectionConfig, "$comment">): PlainCollection {
  return { ...config, type: "plain", excludeRetracted: config.excludeRetracted ?? config.kind === "scholarly" };
}

/** The definition an event records for a plain collection (the catalogue's fields without its type tag). */
export function definitionOf(collection: PlainCollection): CollectionDefinition {
  const { type: _type, ...definition } = collection;
  return definition;
}

/** The catalogue over validated entries (meta-collection members must name plain collections of `collections`). */
export function buildCatalog(collections: PlainCollection[], metaCollections: MetaCollection[]): CollectionCatalog {
  const byLowerName = new Map<string, CatalogEntry>();
  for (const entry of [...collections, ...metaCollections]) byLowerName.set(entry.name.toLowerCase(), entry);
  const plainByName = new Map(collections.map((c) => [c.name, c]));

  const physicalMembers = (entry: CatalogEntry): PlainCollection[] =>
    entry.type === "plain"
      ? [entry]
      : entry.members
          .map((member) => plainByName.get(member))
          .filter((member): member is PlainCollection => member !== undefined);

  return {
    collections,
    metaCollections,
    resolveCollection: (name) => byLowerName.get(name.trim().toLowerCase()) ?? null,
    physicalMembers,
    priceRange(meta, priceOf = (collection) => collection.pricePer1000) {
      let min: bigint | null = null;
      let max: bigint | null = null;
      for (const member of physicalMembers(meta)) {
        const price = priceOf(member);
        const micros = price === null ? null : parseCredits(price);
        if (micros === null || micros < 0n) return null;
        if (min === null || micros < min) min = micros;
        if (max === null || micros > max) max = micros;
      }
      if (min === null || max === null) return null;
      return { min: formatPricePer1000(min), max: formatPricePer1000(max), per: "1000 tokens" };
    },
  };
}

/** Price per 1000 tokens in micro-credits, the unit billing computes in. */
export function pricePer1000Micros(collection: PlainCollection): bigint {
  return parseCredits(collection.pricePer1000)!;
}

/** A per-1000-token price for display: at least three decimals ("0.050"), more only when needed. */
export function formatPricePer1000(micros: bigint): string {
  return formatCredits(micros, 6).replace(/(\.\d{3}\d*?)0+$/, "$1");
}

/** Absolute paths of a collection's source files under the data root. */
export function sourceFilePaths(collection: PlainCollection, dataRoot: string): string[] {
  return collection.source.files.map((file) => join(dataRoot, file));
}

/**
 * The collections a new key is scoped to, by their catalogue names (case as the catalogue spells it, each once): a
 * name the catalogue does not hold is 422 VALIDATION_ERROR naming it and the nearest name, since a key scoped to it
 * would reach nothing. The rule of every way a key is created (operator API, CLI, dashboard).
 */
export function keyScopeOf(catalog: CollectionCatalog, names: readonly string[]): string[] {
  const all = [...catalog.collections, ...catalog.metaCollections].map((entry) => entry.name);
  const scope = new Set<string>();
  for (const name of names) {
    const entry = catalog.resolveCollection(name);
    if (!entry)
      throw new Rejection(
        "VALIDATION_ERROR",
        `collections: no collection is named "${name}".${didYouMean(name, all)} The collections are ${all.join(", ")}`,
      );
    scope.add(entry.name);
  }
  return [...scope];
}
