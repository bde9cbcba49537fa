// Settings and mappings of one collection's OpenSearch index: the BM25 field (title + text, `english` analyzer,
// same k1/b as the embedded engine), typed metadata fields with the filter semantics, and the vector field.
import { DATE_FIELDS, MAX_FILTERABLE_TEXT_LENGTH } from "../../../filters/compileToPredicate.js";
import { BM25_B, BM25_K1 } from "../../fusion.js";
import { ENGINE_FACETS, type AuthorPeopleValues } from "../../workFacetValues.js";

const AUTHOR_PEOPLE_FIELDS: ReadonlyArray<keyof AuthorPeopleValues> = [
  "author_person",
  "author_person_name",
  "author_orcid_role",
];

/**
 * Version of this mapping. 2: k-NN indexes keep the vector out of the stored _source (as JSON it was most of the index
 * and of every search response) and carry it as binary doc values too, for exact cosines in a script field. The
 * adapter still reads version 1 indexes (their cosines come from the _source vector); older ones need a re-index.
 */
export const OPENSEARCH_MAPPING_VERSION = 6;
export const READABLE_MAPPING_VERSIONS: readonly number[] = [1, 2, 3, 4, 5, 6];

/**
 * Version 3 maps `metadata.author_id` (the authorships' OpenAlex ids and ORCIDs the `author_id` filter matches). An
 * older index gets the field added in place on first use (adding a field is allowed on a live index); its documents
 * carry the field once re-ingested, which the readers' version bump does on the next start.
 * Version 4 maps `work_facets` (exact values of each document's first chunk, which works/facets aggregates). An older
 * index gets the fields in place too, but not `_meta.workFacets`: its facets stay counted from the listed documents
 * (exact, slower) until the collection is re-indexed into a new index, whose `_meta` says every first chunk has them.
 * Version 5 adds `work_facets.author` and `work_facets.author_links` (the author facet's entries); likewise added in
 * place to an older index, whose author facet stays counted from the listed documents (no `_meta.workFacetAuthors`).
 * Version 6 adds `work_facets.author_person`, `author_person_name` and `author_orcid_role` (authorPeopleValues: the
 * author facet counted by person in a terms aggregation of a few buckets); an older index without them
 * (`_meta.workFacetPeople`) keeps counting the author facet from its entries.
 */
export function mappingUpgradeBody(meta: Record<string, unknown>): Record<string, unknown> {
  return {
    _meta: { ...meta, mappingVersion: OPENSEARCH_MAPPING_VERSION },
    properties: {
      [FIELD.metadata]: { properties: { author_id: keyword() } },
      [FIELD.workFacets]: workFacetsMapping(),
    },
  };
}

/** How dense vectors are stored and scored. */
export type VectorStorage =
  /** little-endian Float32 bytes in a binary doc-values field, scored exactly by a painless script */
  | "binary"
  /**
   * the k-NN plugin's knn_vector in a Lucene HNSW graph (cosine), searched by approximate filtered k-NN queries; since
   * mapping version 2 also the binary field, from which the candidates' cosines are computed exactly
   */
  | "knn";

/**
 * HNSW parameters of the knn_vector field (Lucene engine: pure Java, none of the plugin's native libraries).
 * m = 16 links per node and ef_construction = 128 are the usual recall/size balance for 384-dim sentence embeddings
 * (500,000 chunks indexed in 29 min and merged into one 3.6 GB segment in 6 min on this machine). ef_search is a
 * query-time setting (HNSW_EF_SEARCH in denseScoring.ts: 800, raised to k when k is larger; the measurements are
 * there). A larger m is the lever left for recall at 500,000 generated chunks; not measured there yet (a re-index of
 * every k-NN collection, and 35 min for that one index).
 */
const HNSW_M = 16;
const HNSW_EF_CONSTRUCTION = 128;

export const FIELD = {
  chunkId: "chunk_id",
  text: "text",
  tokens: "tokens",
  sparse: "search_text",
  metadata: "metadata",
  vectorBinary: "vector_bin",
  vectorKnn: "vector_knn",
  fingerprint: "content_hash",
  /** a document's first chunk only: its facet values (workFacetValues), exact keywords for the facets' aggregations */
  workFacets: "work_facets",
} as const;

/** Each document's first chunk (chunk_index 0), which carries the document's metadata: one chunk per document. */
export const FIRST_CHUNKS = { term: { [`${FIELD.metadata}.chunk_index`]: 0 } };

const KEYWORD_NORMALIZER = "litsearch_lowercase";
const SIMILARITY = "litsearch_bm25";
/**
 * keyword values longer than this (in characters) are kept in _source but not indexed; the predicate ignores them alike
 */
const KEYWORD_IGNORE_ABOVE = MAX_FILTERABLE_TEXT_LENGTH;

/** Metadata fields matched by case-insensitive equality (the predicate folds case the same way). */
const KEYWORD_FIELDS = [
  "doc_id",
  "section",
  "authors",
  "doi",
  "pmid",
  "pmcid",
  "url",
  "publisher",
  "issn",
  "isbn",
  "keywords",
  "article_type",
  "license",
  "chapter_title",
  "chapter_authors",
  "topic",
  "nct_id",
  "overall_status",
  "phases",
  "author_id",
];
const INTEGER_FIELDS = ["chunk_index", "chapter_number"];
const BOOLEAN_FIELDS = ["open_access", "medical_board_approved", "has_results"];

function keyword(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: "keyword", normalizer: KEYWORD_NORMALIZER, ignore_above: KEYWORD_IGNORE_ABOVE, ...extra };
}

function metadataProperties(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const field of KEYWORD_FIELDS) properties[field] = keyword();
  for (const field of INTEGER_FIELDS) properties[field] = { type: "integer", ignore_malformed: true };
  for (const field of BOOLEAN_FIELDS) properties[field] = { type: "boolean" };
  for (const field of DATE_FIELDS) {
    properties[field] = {
      type: "date",
      format: "yyyy-MM-dd||yyyy-MM||yyyy||strict_date_optional_time",
      ignore_malformed: true,
    };
  }
  // the title is part of the BM25 field (see sparseFieldValues in fusion.ts)
  properties.title = keyword({ copy_to: FIELD.sparse });
  properties.journal = keyword({ fields: { text: { type: "text", analyzer: "english" } } });
  properties.figures = { type: "object", enabled: false };
  return properties;
}

/** The longest facet value indexed (a keyword term is at most 32,766 UTF-8 bytes); no journal or subject comes near. */
const FACET_VALUE_IGNORE_ABOVE = 8_000;

/** Exact (case-kept, untokenized) values, one keyword field per facet and the ISSNs that name a journal bucket. */
function workFacetsMapping(): Record<string, unknown> {
  const exact = { type: "keyword", ignore_above: FACET_VALUE_IGNORE_ABOVE };
  return {
    type: "object",
    dynamic: false,
    properties: Object.fromEntries(
      [...ENGINE_FACETS, "issn", "author_links", ...AUTHOR_PEOPLE_FIELDS].map((facet) => [facet, exact] as const),
    ),
  };
}

/**
 * How an index is split and copied over a cluster's nodes (OPENSEARCH_SHARDS, OPENSEARCH_REPLICAS), set when it is
 * created; one node: one shard, no replica.
 */
export interface IndexLayout {
  shards: number;
  replicas: number;
}

export const DEFAULT_INDEX_LAYOUT: IndexLayout = { shards: 1, replicas: 0 };

/** Body of the create-index request. */
export function chunkIndexBody(
  dims: number,
  vectorStorage: VectorStorage,
  embedding?: string,
  layout: IndexLayout = DEFAULT_INDEX_LAYOUT,
): Record<string, unknown> {
  const binaryVector = { [FIELD.vectorBinary]: { type: "binary", doc_values: true } };
  const vectorProperty =
    vectorStorage === "knn"
      ? {
          ...binaryVector,
          [FIELD.vectorKnn]: {
            type: "knn_vector",
            dimension: dims,
            method: {
              name: "hnsw",
              engine: "lucene",
              space_type: "cosinesimil",
              parameters: { m: HNSW_M, ef_construction: HNSW_EF_CONSTRUCTION },
            },
          },
        }
      : binaryVector;
  return {
    settings: {
      index: {
        number_of_shards: layout.shards,
        number_of_replicas: layout.replicas,
        // commit() refreshes; bulk loads go faster without periodic refreshes
        refresh_interval: "-1",
        ...(vectorStorage === "knn" ? { knn: true } : {}),
        similarity: { [SIMILARITY]: { type: "BM25", k1: BM25_K1, b: BM25_B } },
      },
      analysis: {
        normalizer: { [KEYWORD_NORMALIZER]: { type: "custom", filter: ["lowercase"] } },
      },
    },
    mappings: {
      dynamic: false,
      _meta: {
        dims,
        vectorStorage,
        mappingVersion: OPENSEARCH_MAPPING_VERSION,
        // every first chunk indexed into this index carries work_facets (see mappingUpgradeBody)
        workFacets: true,
        workFacetAuthors: true,
        workFacetPeople: true,
        ...(embedding ? { embedding } : {}),
      },
      // the graph's copy of the vector is not stored as JSON: the binary field (base64 in _source) carries it
      ...(vectorStorage === "knn" ? { _source: { excludes: [FIELD.vectorKnn] } } : {}),
      properties: {
        [FIELD.chunkId]: { type: "keyword" },
        [FIELD.text]: { type: "text", index: false, copy_to: FIELD.sparse },
        [FIELD.tokens]: { type: "integer", index: false },
        [FIELD.sparse]: { type: "text", analyzer: "english", similarity: SIMILARITY },
        [FIELD.fingerprint]: { type: "keyword", index: false, doc_values: false },
        ...vectorProperty,
        [FIELD.metadata]: { type: "object", dynamic: false, properties: metadataProperties() },
        [FIELD.workFacets]: workFacetsMapping(),
      },
    },
  };
}

/**
 * Body of the index holding one inventory document per collection index. The inventory itself is stored, not indexed
 * (`enabled: false`): it is only ever fetched by id, and its journal titles would otherwise become mapped fields.
 */
export function inventoryIndexBody(layout: IndexLayout = DEFAULT_INDEX_LAYOUT): Record<string, unknown> {
  return {
    // one shard (a few documents); as many copies as the collections' indexes, so losing a node loses no inventory
    settings: { index: { number_of_shards: 1, number_of_replicas: layout.replicas } },
    mappings: {
      dynamic: "strict",
      properties: {
        index: { type: "keyword" },
        rebuilt: { type: "boolean" },
        inventory: { type: "object", enabled: false },
      },
    },
  };
}
