// The catalogue answer (the spec's discovery object): scope blocks built from collection inventories and the journals
// table, next actions, a payment callout and the same answer as text. Pure: every input is passed in.
import type { JournalRecord } from "../../journals/table.js";
import type { CatalogueIntent } from "./intent.js";
import type { CollectionInventory, SubjectCount } from "../../domain/inventory.js";
import { subjectMatchOf, subjectWeight, topicReader } from "./subjectMatch.js";

interface CatalogueItem {
  kind: "journal" | "collection" | "publisher";
  title: string;
  publisher: string | null;
  hIndex: number | null;
  impactFactor: number | null;
  issnL: string | null;
  issns: string[];
  /** collection rows: the organization's price when one applies to the whole collection */
  pricePer1000?: string;
  /** collection rows of a meta-collection whose members' prices differ */
  priceRange?: { min: string; max: string; per: string } | null;
  /** collection rows: the collection's name, to pass as `collection` */
  name?: string;
  /** documents the item accounts for in this collection */
  documents?: number;
  /** journal rows of a topic-scoped listing: how the journal matched the topic */
  matchedBy?: string;
}

export interface ScopeBlock {
  collection: string;
  displayName: string;
  /** ranked items in the whole list (journals: only journals matched to the metrics table) */
  total: number;
  shown: number;
  offset: number;
  rankedBy: "h_index" | "topic_relevance" | "documents" | null;
  items: CatalogueItem[];
  publishers: string[];
  issnValuesSeen: number;
  note: string | null;
  sampledEntries: number;
  titleOnly: number;
  unresolvedIssns: number;
  truncatedInventory: boolean;
  unranked: CatalogueItem[];
}

type NextActionKind = "search" | "list_collections" | "list_journals" | "request_journal";

interface NextAction {
  action: NextActionKind;
  hint: string;
}

interface Callout {
  kind: "add_payment_method";
  message: string;
}

export interface Discovery {
  intent: CatalogueIntent;
  topic: string | null;
  scopes: ScopeBlock[];
  metricsNote: string | null;
  callout: Callout | null;
  nextActions: NextAction[];
  text: string;
  queryId: string;
}

/** How to read the metrics; the metrics note opens with the table's basis sentence (metricsBasisSentence) before it. */
const METRICS_NOTE =
  "hIndex: the h-index of the journal over the works in our citation dataset. impactFactor: computed by this " +
  "service from an open citation dataset with the JIF formula (citations received in the year by everything " +
  "the journal published in the two previous years, divided by its articles and reviews of those years); it is " +
  "not a proprietary Journal Impact Factor, journals publishing many news items, letters and editorials score " +
  "far lower, and a journal with fewer than 20 articles and reviews in the two years, or where those are under " +
  "half of its output, has none (null, not 0).";

/** A journals-table lookup by any canonical ISSN. */
export type JournalLookup = (issn: string) => JournalRecord | undefined;

export function journalLookupOf(journals: readonly JournalRecord[]): JournalLookup {
  const byIssn = new Map<string, JournalRecord>();
  for (const j of journals) for (const issn of j.issns) byIssn.set(issn, j);
  return (issn) => byIssn.get(issn);
}

/**
 * Relevance of a journal's content to a topic, keyed by the chunk's first canonical ISSN, else its lower-cased title.
 */
export type TopicWeights = ReadonlyMap<string, { weight: number; documents?: number }>;

interface JournalListOptions {
  topic: string | null;
  topicWeights?: TopicWeights;
  publisher?: string;
  minHIndex?: number;
  limit: number;
  offset: number;
}

interface JournalGroup {
  record?: JournalRecord;
  title: string;
  publisher: string | null;
  issns: Set<string>;
  documents: number;
  weight: number;
  /** documents retrieved for the topic (content matches) */
  topicDocuments: number;
  subjects: Map<string, SubjectCount>;
  matchedBy?: string;
}

const sameName = (a: string | null | undefined, b: string) => (a ?? "").trim().toLowerCase() === b.trim().toLowerCase();

function itemOf(g: JournalGroup): CatalogueItem {
  const r = g.record;
  return {
    kind: "journal",
    title: r?.title ?? g.title,
    publisher: r?.publisher ?? g.publisher,
    hIndex: r?.h_index ?? null,
    impactFactor: r?.impact_factor ?? null,
    issnL: r?.issnL ?? null,
    issns: r ? [...r.issns] : [...g.issns].sort(),
    documents: g.documents,
    ...(g.matchedBy ? { matchedBy: g.matchedBy } : {}),
  };
}

/** h-index descending with nulls last, then title, then ISSN-L: a total order, so pages never overlap. */
function byHIndex(a: JournalGroup, b: JournalGroup): number {
  const ha = a.record?.h_index ?? null;
  const hb = b.record?.h_index ?? null;
  if (ha !== hb) return ha === null ? 1 : hb === null ? -1 : hb - ha;
  const t = (a.record?.title ?? a.title).localeCompare(b.record?.title ?? b.title);
  return t !== 0
    ? t
    : (a.record?.issnL ?? [...a.issns][0] ?? "").localeCompare(b.record?.issnL ?? [...b.issns][0] ?? "");
}

/** Each topic weight goes to the one journal its key (an ISSN, else a lower-cased title) names. */
function assignWeights(weights: TopicWeights, byIssn: JournalGroup[], byTitle: JournalGroup[]): void {
  const owner = new Map<string, JournalGroup>();
  for (const g of byIssn) for (const issn of [...g.issns, ...(g.record?.issns ?? [])]) owner.set(issn, g);
  for (const g of byTitle) owner.set(g.title.trim().toLowerCase(), g);
  for (const [key, { weight, documents }] of weights) {
    const g = owner.get(key);
    if (!g) continue;
    g.weight += weight;
    g.topicDocuments += documents ?? 0;
  }
}

/**
 * Weights by subject: a journal whose title names the topic, or a subject of which covers enough of its documents
 * (subjectMatch.ts), weighs its share on the subject and says how it matched; the others weigh 0. False when no journal
 * matched, so the content weights rank instead.
 */
function assignSubjectWeights(topic: string, groups: JournalGroup[]): boolean {
  const read = topicReader(topic);
  if (!read) return false;
  let any = false;
  for (const g of groups) {
    const match = subjectMatchOf(read, topic, {
      title: g.record?.title ?? g.title,
      documents: g.documents,
      subjects: g.subjects.values(),
    });
    if (!match) continue;
    any = true;
    g.weight = subjectWeight(match);
    g.matchedBy = match.matchedBy;
  }
  return any;
}

/** How a journal ranked by content matched: the documents the topic's search retrieved from it. */
function contentMatch(g: JournalGroup): void {
  if (g.weight > 0)
    g.matchedBy = `content: ${g.topicDocuments} ${g.topicDocuments === 1 ? "work" : "works"} close to the topic`;
}

const hasAnyMetric = (r: JournalRecord): boolean =>
  r.h_index !== null || r.i10_index !== null || r.two_yr_mean_citedness !== null || r.impact_factor !== null;

/** Groups a collection's inventory by journal: matched to the journals table, ISSNs the table lacks, titles only. */
function journalGroups(
  inventory: CollectionInventory,
  lookup: JournalLookup,
  topic: string | null,
  weights?: TopicWeights,
) {
  const matched = new Map<JournalRecord, JournalGroup>();
  const unresolved = new Map<string, JournalGroup>();
  const titleOnly = new Map<string, JournalGroup>();
  const issnsSeen = new Set<string>();
  const unresolvedIssns = new Set<string>();
  const publisherDocs = new Map<string, number>();
  let withoutJournal = 0;
  for (const e of inventory.entries) {
    for (const issn of e.issns) issnsSeen.add(issn);
    if (e.publisher) publisherDocs.set(e.publisher, (publisherDocs.get(e.publisher) ?? 0) + e.documents);
    const known = e.issns.map(lookup).find((r) => r !== undefined);
    // a row with no metric at all (a journal known only from DOAJ) is not matched to the metrics table: it is
    // reported beside the total and never ranked, as an ISSN the table lacks is (the spec's scope block)
    const record = known && hasAnyMetric(known) ? known : undefined;
    let group: JournalGroup | undefined;
    if (record) {
      group = matched.get(record) ?? {
        record,
        title: record.title ?? e.journal ?? record.issns[0]!,
        publisher: record.publisher ?? e.publisher,
        issns: new Set(),
        documents: 0,
        weight: 0,
        topicDocuments: 0,
        subjects: new Map(),
      };
      matched.set(record, group);
    } else if (e.issns.length > 0) {
      for (const issn of e.issns) unresolvedIssns.add(issn);
      const key = known ? known.issns.join(",") : e.issns.join(",");
      group = unresolved.get(key) ?? {
        title: known?.title ?? e.journal ?? e.issns[0]!,
        publisher: known?.publisher ?? e.publisher,
        issns: new Set(),
        documents: 0,
        weight: 0,
        topicDocuments: 0,
        subjects: new Map(),
      };
      unresolved.set(key, group);
    } else if (e.journal) {
      const key = e.journal.trim().toLowerCase();
      group = titleOnly.get(key) ?? {
        title: e.journal,
        publisher: e.publisher,
        issns: new Set(),
        documents: 0,
        weight: 0,
        topicDocuments: 0,
        subjects: new Map(),
      };
      titleOnly.set(key, group);
    } else {
      withoutJournal += e.documents;
      continue;
    }
    for (const issn of e.issns) group.issns.add(issn);
    group.documents += e.documents;
    for (const subject of e.subjects ?? []) {
      const id = `${subject.scheme}\u0000${subject.name}`;
      const count = group.subjects.get(id);
      if (count) count.documents += subject.documents;
      else group.subjects.set(id, { ...subject });
    }
  }
  const groups = [...matched.values(), ...unresolved.values(), ...titleOnly.values()];
  // a topic matches journals by subject where the documents carry one that names it, else by content
  const bySubject = topic !== null && assignSubjectWeights(topic, groups);
  if (topic !== null && !bySubject && weights) {
    assignWeights(weights, [...matched.values(), ...unresolved.values()], [...titleOnly.values()]);
    groups.forEach(contentMatch);
  }
  const publishers = [...publisherDocs.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return {
    matched: [...matched.values()],
    unresolved: [...unresolved.values()],
    titleOnly: [...titleOnly.values()],
    issnsSeen,
    unresolvedIssns,
    publishers,
    withoutJournal,
  };
}

/** One collection's journals, ranked by h-index, or by content on the topic when one is given. */
export function journalScope(
  scope: { name: string; displayName: string },
  inventory: CollectionInventory,
  lookup: JournalLookup,
  options: JournalListOptions,
): ScopeBlock {
  const g = journalGroups(inventory, lookup, options.topic, options.topicWeights);
  const narrow = (x: JournalGroup) =>
    (options.publisher === undefined || sameName(x.record?.publisher ?? x.publisher, options.publisher)) &&
    (options.minHIndex === undefined || (x.record?.h_index ?? -1) >= options.minHIndex) &&
    (options.topic === null || x.weight > 0);
  const ranked = g.matched
    .filter(narrow)
    .sort(options.topic === null ? byHIndex : (a, b) => b.weight - a.weight || byHIndex(a, b));
  // unranked rows cannot pass a metric floor: they have no metrics
  const unranked = [...g.unresolved, ...g.titleOnly]
    .filter((x) => options.minHIndex === undefined && narrow(x))
    .sort(
      (a, b) =>
        (options.topic === null ? 0 : b.weight - a.weight) ||
        b.documents - a.documents ||
        a.title.localeCompare(b.title),
    );
  const items = ranked.slice(options.offset, options.offset + options.limit).map(itemOf);
  const notes: string[] = [];
  if (inventory.entries.length === 0 || g.withoutJournal === inventory.documentCount)
    notes.push(
      "The documents of this collection carry no journal metadata, so there are no journals to list (" +
        `${inventory.documentCount} documents).`,
    );
  else if (g.withoutJournal > 0)
    notes.push(
      `${g.withoutJournal} of ${inventory.documentCount} documents carry no journal metadata and are not counted.`,
    );
  if (options.topic !== null && ranked.length === 0 && g.matched.length > 0)
    notes.push(`No journal with metrics holds content on "${options.topic}" in this collection.`);
  if (inventory.truncated)
    notes.push("The inventory of this collection is truncated: only its largest journals are listed.");
  return {
    collection: scope.name,
    displayName: scope.displayName,
    total: ranked.length,
    shown: items.length,
    offset: options.offset,
    rankedBy: options.topic === null ? "h_index" : "topic_relevance",
    items,
    publishers: g.publishers.map(([p]) => p),
    issnValuesSeen: g.issnsSeen.size,
    note: notes.length > 0 ? notes.join(" ") : null,
    sampledEntries: 0,
    titleOnly: g.titleOnly.length,
    unresolvedIssns: g.unresolvedIssns.size,
    truncatedInventory: inventory.truncated,
    unranked: unranked.slice(0, options.limit).map(itemOf),
  };
}

/** One collection's publishers, by the number of its documents they account for. */
export function publisherScope(
  scope: { name: string; displayName: string },
  inventory: CollectionInventory,
  lookup: JournalLookup,
  limit: number,
): ScopeBlock {
  const g = journalGroups(inventory, lookup, null);
  const items: CatalogueItem[] = g.publishers.slice(0, limit).map(([title, documents]) => ({
    kind: "publisher",
    title,
    publisher: null,
    hIndex: null,
    impactFactor: null,
    issnL: null,
    issns: [],
    documents,
  }));
  return {
    collection: scope.name,
    displayName: scope.displayName,
    total: g.publishers.length,
    shown: items.length,
    offset: 0,
    rankedBy: "documents",
    items,
    publishers: g.publishers.map(([p]) => p),
    issnValuesSeen: g.issnsSeen.size,
    note:
      g.publishers.length === 0
        ? `The documents of this collection carry no publisher metadata (${inventory.documentCount} documents).`
        : null,
    sampledEntries: 0,
    titleOnly: g.titleOnly.length,
    unresolvedIssns: g.unresolvedIssns.size,
    truncatedInventory: inventory.truncated,
    unranked: [],
  };
}

export interface CollectionRow {
  name: string;
  displayName: string;
  description: string | null;
  documentCount: number;
  pricePer1000?: string;
  priceRange?: { min: string; max: string; per: string } | null;
}

/** A searched collection as a catalogue row; a meta-collection lists its members as further rows. */
export function sourceScope(
  scope: { name: string; displayName: string },
  rows: CollectionRow[],
  inventories: CollectionInventory[],
  lookup: JournalLookup,
): ScopeBlock {
  const items: CatalogueItem[] = rows.map((r) => ({
    kind: "collection",
    title: r.displayName,
    name: r.name,
    publisher: null,
    hIndex: null,
    impactFactor: null,
    issnL: null,
    issns: [],
    documents: r.documentCount,
    ...(r.pricePer1000 !== undefined ? { pricePer1000: r.pricePer1000 } : {}),
    ...(r.priceRange !== undefined ? { priceRange: r.priceRange } : {}),
  }));
  const groups = inventories.map((inv) => journalGroups(inv, lookup, null));
  const publishers = [...new Set(groups.flatMap((g) => g.publishers.map(([p]) => p)))];
  return {
    collection: scope.name,
    displayName: scope.displayName,
    total: items.length,
    shown: items.length,
    offset: 0,
    rankedBy: null,
    items,
    publishers,
    issnValuesSeen: new Set(groups.flatMap((g) => [...g.issnsSeen])).size,
    note: null,
    sampledEntries: 0,
    titleOnly: groups.reduce((s, g) => s + g.titleOnly.length, 0),
    unresolvedIssns: new Set(groups.flatMap((g) => [...g.unresolvedIssns])).size,
    truncatedInventory: inventories.some((i) => i.truncated),
    unranked: [],
  };
}

/** Ready-to-use next steps for the answer given. */
export function nextActionsFor(
  intent: CatalogueIntent,
  topic: string | null,
  scopes: ScopeBlock[],
  page?: { limit: number },
): NextAction[] {
  const first = scopes[0];
  const actions: NextAction[] = [];
  const journalsUrl = (s: ScopeBlock, extra: Record<string, string | number> = {}) => {
    const params = new URLSearchParams(
      Object.entries({ ...(topic ? { topic } : {}), ...extra }).map(([k, v]): [string, string] => [k, String(v)]),
    );
    const q = params.toString();
    return `GET /api/v1/search/collections/${encodeURIComponent(s.collection)}/journals${q ? `?${q}` : ""}`;
  };
  if (intent === "journals" && first) {
    const top = scopes.flatMap((s) =>
      s.items
        .filter((i) => i.issns.length > 0)
        .slice(0, 1)
        .map((i) => ({ s, i })),
    )[0];
    if (top) {
      actions.push({
        action: "search",
        hint: `POST /api/v1/search/query ${JSON.stringify({
          collection: top.s.collection,
          query: topic ?? "your research question",
          filters: { issn: top.i.issns },
        })} searches ${top.i.title} only`,
      });
    }
    const more = scopes.find((s) => s.offset + s.shown < s.total);
    if (more && page)
      actions.push({
        action: "list_journals",
        hint:
          `${journalsUrl(more, { offset: more.offset + more.shown, limit: page.limit })} shows the next ` +
          `${page.limit} journals of ${more.collection}`,
      });
    else
      actions.push({
        action: "list_journals",
        hint:
          `${journalsUrl(first)} lists the journals of ${first.collection} with their metrics; add topic=, ` +
          "publisher= or min_h_index= to narrow",
      });
    actions.push({
      action: "request_journal",
      hint:
        'POST /api/v1/search/journal-requests {"title": "...", "issn": "...", "note": "..."} asks us to add a ' +
        "journal we do not hold (free)",
    });
  } else if (intent === "publishers" && first) {
    const top = first.items[0];
    if (top) {
      actions.push({
        action: "list_journals",
        hint: `${journalsUrl(first, { publisher: top.title })} lists ${top.title}'s journals in ${first.collection}`,
      });
      actions.push({
        action: "search",
        hint: `POST /api/v1/search/query ${JSON.stringify({
          collection: first.collection,
          query: "your research question",
          filters: { publisher: top.title },
        })} searches one publisher's documents`,
      });
    }
    actions.push({
      action: "list_collections",
      hint: "GET /api/v1/search/collections lists every collection your key can reach",
    });
  } else {
    actions.push({
      action: "list_collections",
      hint: "GET /api/v1/search/collections lists every collection your key can reach, with document counts",
    });
    if (first) {
      actions.push({
        action: "search",
        hint:
          "POST /api/v1/search/query " +
          `${JSON.stringify({ collection: first.collection, query: "your research question" })}`,
      });
      actions.push({
        action: "list_journals",
        hint: `${journalsUrl(first)} lists the journals of ${first.collection}`,
      });
    }
  }
  return actions;
}

function describeItem(i: CatalogueItem): string {
  if (i.kind === "collection") {
    const price =
      i.pricePer1000 !== undefined
        ? `, ${i.pricePer1000} credits per 1000 tokens`
        : i.priceRange
          ? `, ${i.priceRange.min}-${i.priceRange.max} credits per 1000 tokens`
          : "";
    return `${i.title} (${i.name}; ${i.documents ?? 0} documents${price})`;
  }
  if (i.kind === "publisher") return `${i.title} (${i.documents ?? 0} documents)`;
  const metrics = [
    i.hIndex !== null ? `h-index ${i.hIndex}` : null,
    i.impactFactor !== null ? `impact factor ${i.impactFactor}` : null,
    i.issns.length ? `ISSN ${i.issns.join(", ")}` : null,
  ]
    .filter(Boolean)
    .join("; ");
  return `${i.title}${i.publisher ? `, ${i.publisher}` : ""}${metrics ? ` (${metrics})` : ""}`;
}

/** The answer as text, as an MCP client shows it. */
function discoveryText(d: Omit<Discovery, "text">): string {
  const lines: string[] = [];
  const what =
    d.intent === "journals"
      ? d.topic
        ? `Journals with content on "${d.topic}"`
        : "Journals"
      : d.intent === "publishers"
        ? "Publishers"
        : "Data sources";
  lines.push(`${what} you can search (catalogue answer, free):`);
  for (const s of d.scopes) {
    const range = s.shown > 0 ? `, ${s.offset + 1}-${s.offset + s.shown} of ${s.total}` : `, ${s.total} in all`;
    lines.push(
      "",
      `${s.displayName} [${s.collection}]${d.intent === "sources" ? "" : range}` +
        `${s.rankedBy ? `, ranked by ${s.rankedBy.replace("_", " ")}` : ""}:`,
    );
    for (const [n, i] of s.items.entries()) lines.push(`${s.offset + n + 1}. ${describeItem(i)}`);
    if (s.unranked.length > 0) lines.push(`Not ranked (no metrics): ${s.unranked.map((i) => i.title).join("; ")}`);
    if (s.note) lines.push(s.note);
  }
  if (d.metricsNote) lines.push("", d.metricsNote);
  if (d.callout) lines.push("", d.callout.message);
  if (d.nextActions.length > 0) lines.push("", "Next:", ...d.nextActions.map((a) => `- ${a.action}: ${a.hint}`));
  lines.push("", `Reference: ${d.queryId}`);
  return lines.join("\n");
}

/** The notice to add a payment method: a trial organization, or a live one with nothing left to pay with. */
export function paymentCallout(billingMode: string, balanceMicros: bigint): Callout | null {
  if (billingMode === "trial")
    return {
      kind: "add_payment_method",
      message:
        "Your organization is on a trial: add a payment method to keep searching and unlocking these journals " +
        "once the trial allowance is used.",
    };
  if (billingMode === "live" && balanceMicros <= 0n)
    return {
      kind: "add_payment_method",
      message:
        "Your balance is zero: add a payment method and credits to search and unlock full text from these journals.",
    };
  return null;
}

/** `metricsBasis`: the journals table's sentence saying what its metrics were computed from. */
export function assembleDiscovery(parts: Omit<Discovery, "text" | "metricsNote">, metricsBasis: string): Discovery {
  const metricsShown = parts.scopes.some((s) => s.items.some((i) => i.kind === "journal"));
  const withNote = { ...parts, metricsNote: metricsShown ? `${metricsBasis} ${METRICS_NOTE}` : null };
  return { ...withNote, text: discoveryText(withNote) };
}
