// Topic-scoped journal listings on openalex-synergy, before and after subject matching: "before" ranks journals by the
// content a search of the topic finds (the rule when no journal matches by title or subject, so subjects and titles
// are hidden from it), "after" is the service's listing. Prints each listing's size, how many of its first 30 and 10
// journals have a title naming the topic's field (a pattern per topic), and the first rows with `matchedBy`.
// Reads the index that bench/assistedRecall.ts builds in data/bench-synergy (run that once first).
// Usage: npx tsx bench/journalSubjects.ts
import { join } from "node:path";
import pino from "pino";
import { loadConfig, REPO_ROOT } from "../src/app/config.js";
import { startRuntime } from "../src/app/composition.js";
import type { PlainCollection } from "../src/domain/collectionDefinitions.js";
import { loadJournalTable } from "../src/filters/planner.js";
import { readInventory } from "../src/usecases/catalogue/collectionsList.js";
import { journalLookupOf, journalScope } from "../src/usecases/catalogue/discovery.js";
import { journalWeightsForTopic } from "../src/usecases/search/topicJournals.js";

/** topics, each with the title words of journals in its field (a rough yardstick, read on titles only) */
const TOPICS: Array<{ topic: string; field: RegExp }> = [
  { topic: "cardiology", field: /cardi|heart|circulation|hypertens|arrhythm|atheroscl|vascular|thromb/i },
  { topic: "psychiatry", field: /psychiat|mental|psycho/i },
  { topic: "orthopedics", field: /orthop|bone|joint|arthro|sport|knee|cartilage/i },
];
const COLLECTION = "openalex-synergy";

const config = loadConfig({ ...process.env, DATA_DIR: join(REPO_ROOT, "data", "bench-synergy") });
const runtime = await startRuntime(config, { worker: false, log: pino({ level: "warn" }) });
try {
  const collection = runtime.catalog.collections.find((c) => c.name === COLLECTION) as PlainCollection;
  const inventory = await readInventory(runtime.engine, collection);
  if (inventory.documentCount === 0) throw new Error(`${COLLECTION} is not ingested in data/bench-synergy`);
  const table = await loadJournalTable(config.dataDir, config.dataRoot);
  const titleOf = new Map<string, string>();
  for (const j of table.journals) for (const issn of j.issns) titleOf.set(issn, j.title ?? issn);
  const scope = { name: COLLECTION, displayName: collection.displayName };
  // "before": neither subjects nor titles can match, so the listing ranks by content only
  const hiddenTable = journalLookupOf(table.journals.map((j) => ({ ...j, title: `#${j.issns[0]}` })));
  const bare = {
    ...inventory,
    entries: inventory.entries.map(({ subjects: _subjects, ...e }) => ({
      ...e,
      journal: e.journal && `#${e.issns[0]}`,
    })),
  };
  const report = [];
  for (const { topic, field } of TOPICS) {
    const weights = await journalWeightsForTopic(runtime, collection, topic);
    const before = journalScope(scope, bare, hiddenTable, { topic, topicWeights: weights, limit: 50, offset: 0 });
    const after = journalScope(scope, inventory, journalLookupOf(table.journals), { topic, limit: 50, offset: 0 });
    const titles = (items: { issns: string[]; title: string }[]) =>
      items.map((i) => titleOf.get(i.issns[0]!) ?? i.title);
    const inField = (names: string[], n: number) => names.slice(0, n).filter((name) => field.test(name)).length;
    const b = titles(before.items);
    const a = titles(after.items);
    report.push({
      topic,
      before: { listed: before.total, inField30: inField(b, 30), inField10: inField(b, 10), first: b.slice(0, 10) },
      after: {
        listed: after.total,
        inField30: inField(a, 30),
        inField10: inField(a, 10),
        first: after.items.slice(0, 10).map((i) => `${i.title}: ${i.matchedBy}`),
      },
    });
  }
  console.log(JSON.stringify({ journalSubjects: report }, null, 1));
  console.log("\ntopic         listed before/after  field titles in first 30  in first 10");
  for (const r of report)
    console.log(
      `${r.topic.padEnd(13)} ${`${r.before.listed} / ${r.after.listed}`.padEnd(20)} ` +
        `${`${r.before.inField30} / ${r.after.inField30}`.padEnd(25)} ${r.before.inField10} / ${r.after.inField10}`,
    );
} finally {
  await runtime.close();
}
