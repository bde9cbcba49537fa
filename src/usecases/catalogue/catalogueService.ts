// Catalogue use cases: a catalogue question answered from the catalogue (free), and the journals listing of a
// collection.
//
// Decisions (docs/api.md "Catalogue answers"):
// - A meta-collection answers with one scope block per member: members differ in journals, prices and metrics.
// - A sources question lists every collection the key can reach, the requested ones first.
// - An answer is free: no credits, no daily or monthly quota, no trial query, no preview hour. Every catalogue call
//   (answer, journals listing, journal request) takes one slot of the per-minute budget, and is recorded as an event.
// - Sandbox keys get real answers: the catalogue is metadata, not licensed content, like the collections list.
import { randomUUID } from "node:crypto";
import type { AuthContext } from "../auth/context.js";
import type { CatalogEntry, CollectionCatalog, PlainCollection } from "../../domain/collectionDefinitions.js";
import { formatPricePer1000 } from "../../domain/collectionDefinitions.js";
import { Rejection } from "../../domain/rejection.js";
import { reachableNames, resolveTargets } from "../auth/keyScope.js";
import { didYouMean } from "../../domain/didYouMean.js";
import type { CatalogueIntent, CatalogueQuestion } from "./intent.js";
import type { CollectionInventory } from "../../domain/inventory.js";
import type { JournalRequest } from "./catalogueEvents.js";
import {
  assembleDiscovery,
  journalScope,
  nextActionsFor,
  paymentCallout,
  publisherScope,
  sourceScope,
  type CollectionRow,
  type Discovery,
  type JournalLookup,
  type ScopeBlock,
  type TopicWeights,
} from "./discovery.js";

/** What is recorded of each answer, as a free event. */
interface CatalogueAnswerRecord {
  queryId: string;
  endpoint: string;
  intent: CatalogueIntent;
  topic: string | null;
  collections: string[];
}

interface CatalogueDeps {
  catalog: CollectionCatalog;
  journals: JournalLookup;
  /** the journals table's sentence saying what its metrics were computed from (metricsBasisSentence) */
  metricsBasis: string;
  /** the collection's inventory (documents per journal identity) */
  inventoryOf(collection: PlainCollection): Promise<CollectionInventory>;
  /** relevance of each journal's content to a topic in one physical collection */
  topicWeights(collection: PlainCollection, topic: string): Promise<TopicWeights>;
  /** the organization's price per 1000 tokens for a physical collection, in micro-credits */
  priceOf(auth: AuthContext, collection: PlainCollection): bigint;
  /** appends the free audit event of an answer */
  record(auth: AuthContext, answer: CatalogueAnswerRecord): Promise<void>;
  /** appends a journal request */
  recordJournalRequest(auth: AuthContext, request: JournalRequestInput): Promise<JournalRequest>;
  /** takes one slot of the organization's per-minute budget (429 QUOTA_EXCEEDED when none is left) */
  takeMinuteSlot(auth: AuthContext): Promise<void>;
}

interface JournalRequestInput {
  title?: string;
  issn?: string;
  note?: string;
}

interface JournalListing {
  topic: string | null;
  publisher?: string;
  minHIndex?: number;
  limit: number;
  offset: number;
}

/** Journals shown per scope in a catalogue answer to a search endpoint (the listing takes `limit`). */
const ANSWER_JOURNALS_PER_SCOPE = 20;

export type CatalogueService = ReturnType<typeof createCatalogueService>;

/** The catalogue entries (collections and meta-collections) an API key can reach. */
function reachable(catalog: CollectionCatalog, auth: AuthContext): CatalogEntry[] {
  const scope = auth.key.collections?.map((c) => c.toLowerCase()) ?? null;
  return [...catalog.collections, ...catalog.metaCollections].filter(
    (c) => !scope || scope.includes(c.name.toLowerCase()),
  );
}

/** The physical collections behind some entries, each once. */
function members(catalog: CollectionCatalog, entries: CatalogEntry[]): PlainCollection[] {
  return [...new Map(entries.flatMap((e) => catalog.physicalMembers(e)).map((c) => [c.name, c])).values()];
}

/** One collection's row of a sources answer: its size and the organization's price (or price range). */
async function collectionRow(deps: CatalogueDeps, auth: AuthContext, entry: CatalogEntry): Promise<CollectionRow> {
  const { catalog } = deps;
  const physical = catalog.physicalMembers(entry);
  const inventories = await Promise.all(physical.map(deps.inventoryOf));
  const documentCount = inventories.reduce((s, i) => s + i.documentCount, 0);
  const base = { name: entry.name, displayName: entry.displayName, description: entry.description, documentCount };
  if (entry.type === "plain") return { ...base, pricePer1000: formatPricePer1000(deps.priceOf(auth, entry)) };
  const range = catalog.priceRange(entry, (m) => formatPricePer1000(deps.priceOf(auth, m)));
  return range && range.min === range.max ? { ...base, pricePer1000: range.min } : { ...base, priceRange: range };
}

/** A sources answer: one scope per requested entry, then one per other reachable entry. */
async function sourceScopes(deps: CatalogueDeps, auth: AuthContext, requested: CatalogEntry[]): Promise<ScopeBlock[]> {
  const { catalog } = deps;
  const requestedNames = new Set(requested.map((r) => r.name));
  const entries = [...requested, ...reachable(catalog, auth).filter((e) => !requestedNames.has(e.name))];
  return Promise.all(
    entries.map(async (entry) => {
      const physical = catalog.physicalMembers(entry);
      const rows = [
        await collectionRow(deps, auth, entry),
        ...(entry.type === "meta" ? await Promise.all(physical.map((m) => collectionRow(deps, auth, m))) : []),
      ];
      return sourceScope(
        { name: entry.name, displayName: entry.displayName },
        rows,
        await Promise.all(physical.map(deps.inventoryOf)),
        deps.journals,
      );
    }),
  );
}

export function createCatalogueService(deps: CatalogueDeps) {
  const { catalog } = deps;

  async function scopesFor(
    auth: AuthContext,
    question: CatalogueQuestion,
    requested: CatalogEntry[],
    listing: JournalListing,
  ): Promise<ScopeBlock[]> {
    if (question.intent === "sources") return sourceScopes(deps, auth, requested);
    return Promise.all(
      members(catalog, requested).map(async (collection) => {
        const scope = { name: collection.name, displayName: collection.displayName };
        const inventory = await deps.inventoryOf(collection);
        if (question.intent === "publishers") return publisherScope(scope, inventory, deps.journals, listing.limit);
        // journals match a topic by their titles and the subjects their documents carry; the topic is searched (its
        // content weighed) only where no journal matched that way
        const bySubject = journalScope(scope, inventory, deps.journals, listing);
        if (listing.topic === null || bySubject.total + bySubject.unranked.length > 0) return bySubject;
        const topicWeights = await deps.topicWeights(collection, listing.topic);
        return journalScope(scope, inventory, deps.journals, { ...listing, topicWeights });
      }),
    );
  }

  async function answerFor(
    auth: AuthContext,
    question: CatalogueQuestion,
    requested: CatalogEntry[],
    listing: JournalListing,
    endpoint: string,
    paged: boolean,
  ): Promise<Discovery> {
    const scopes = await scopesFor(auth, question, requested, listing);
    const queryId = randomUUID();
    const topic = question.intent === "journals" ? listing.topic : null;
    await deps.record(auth, {
      queryId,
      endpoint,
      intent: question.intent,
      topic,
      collections: requested.map((r) => r.name),
    });
    return assembleDiscovery(
      {
        intent: question.intent,
        topic,
        scopes,
        callout:
          question.intent === "sources" && auth.billingMode === "sandbox"
            ? null
            : paymentCallout(auth.billingMode, auth.org.balanceMicros),
        nextActions: nextActionsFor(question.intent, topic, scopes, paged ? { limit: listing.limit } : undefined),
        queryId,
      },
      deps.metricsBasis,
    );
  }

  return {
    /**
     * A catalogue question sent to a search endpoint: the requested collections are resolved and scoped as a search's.
     */
    async answer(
      auth: AuthContext,
      collections: string[],
      question: CatalogueQuestion,
      endpoint: string,
    ): Promise<Discovery> {
      const requested = resolveTargets(catalog, auth, collections).map((t) => t.requested);
      await deps.takeMinuteSlot(auth);
      return answerFor(
        auth,
        question,
        requested,
        { topic: question.topic, limit: ANSWER_JOURNALS_PER_SCOPE, offset: 0 },
        endpoint,
        false,
      );
    },

    /**
     * GET /collections/{name}/journals: an unknown or out-of-scope name is 403 NO_COLLECTION_ACCESS (the spec's rule
     * for this listing).
     */
    async journals(auth: AuthContext, name: string, listing: JournalListing): Promise<Discovery> {
      const entry = catalog.resolveCollection(name);
      const scope = auth.key.collections?.map((c) => c.toLowerCase()) ?? null;
      if (!entry || (scope && !scope.includes(entry.name.toLowerCase()))) {
        throw new Rejection(
          "NO_COLLECTION_ACCESS",
          `this API key cannot reach a collection named "${name}".` +
            `${didYouMean(name, reachableNames(catalog, auth))} GET /api/v1/search/collections ` +
            "(MCP: list_collections) lists the ones it can",
        );
      }
      await deps.takeMinuteSlot(auth);
      return answerFor(
        auth,
        { intent: "journals", topic: listing.topic },
        [entry],
        listing,
        "/collections/{name}/journals",
        true,
      );
    },

    /** POST /journal-requests: a journal the client wants us to add (free; the request_journal next action). */
    async requestJournal(auth: AuthContext, request: JournalRequestInput): Promise<JournalRequest> {
      await deps.takeMinuteSlot(auth);
      return deps.recordJournalRequest(auth, request);
    },
  };
}
