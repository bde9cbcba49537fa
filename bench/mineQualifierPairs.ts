// Mines the qualifier pairs of bench/qualifierPairs.json from the demo collections' own texts: for a query that asks
// for a qualifier (a population, or "with"/"without" a condition), a document that has it and one on the same topic
// that has it only negated or names only another population. Run once; the pairs were then read and kept by hand.
// Usage: npx tsx bench/mineQualifierPairs.ts > bench/qualifierPairs.json
import { type PlainCollection } from "../src/domain/collectionDefinitions.js";
import { loadCollectionCatalog } from "../src/app/collectionsFile.js";
import { loadConfig } from "../src/app/config.js";
import { readCollectionDocuments } from "../src/ingest/readCollection.js";

interface Doc {
  collection: string;
  docId: string;
  title: string;
  text: string;
}

const CHILD = /\b(?:children|child|paediatric|pediatric|infants?|adolescents?|schoolchildren)\b/i;
const ADULT = /\b(?:adults?|elderly|older (?:adults|people|patients)|middle-aged)\b/i;

/** [query, topic words every document must hold, the better document's test, the worse document's test] */
const QUERIES: [string, RegExp[], RegExp, RegExp][] = [
  [
    "emicizumab prophylaxis in hemophilia A with factor VIII inhibitors",
    [/emicizumab/i],
    /\bwith (?:factor VIII |FVIII )?inhibitors?\b/i,
    new RegExp(
      String.raw`\bwithout (?:factor VIII |FVIII )?inhibitors?\b|` +
        String.raw`\bno (?:new )?(?:development of )?(?:factor VIII |FVIII )?inhibitors?\b`,
      "i",
    ),
  ],
  [
    "emicizumab in hemophilia A without inhibitors",
    [/emicizumab/i],
    /\bwithout (?:factor VIII |FVIII )?inhibitors?\b/i,
    /\bwith (?:factor VIII |FVIII )?inhibitors?\b/i,
  ],
];
for (const [topic, words] of [
  ["hair cortisol", [/hair/i, /cortisol|glucocorticoid/i]],
  ["borderline personality disorder", [/borderline personality/i]],
  ["asthma", [/asthma/i]],
  ["obesity", [/obesity|obese/i]],
  ["vitamin D", [/vitamin D/i]],
  ["muscle relaxants for pain", [/muscle relax|cyclobenzaprine|tizanidine|baclofen/i]],
  ["stem cell therapy", [/stem cells?/i]],
  ["depression", [/depress/i]],
  ["diabetes", [/diabet/i]],
  ["sepsis", [/sepsis|septic/i]],
  ["influenza vaccination", [/influenza/i, /vaccin/i]],
  ["malaria", [/malaria/i]],
  ["HIV", [/\bHIV\b/]],
  ["sleep", [/\bsleep/i]],
  ["anemia", [/an(?:a)?emia/i]],
] as [string, RegExp[]][]) {
  QUERIES.push([`${topic} in children`, words, CHILD, ADULT]);
  QUERIES.push([`${topic} in adults`, words, ADULT, CHILD]);
}

async function main() {
  const config = loadConfig({ ...process.env, ADMIN_TOKEN: "mine-admin-token-0123456789" });
  const catalog = await loadCollectionCatalog(config.collectionsConfig);
  const docs: Doc[] = [];
  for (const name of ["openalex-synergy", "clinical-digest", "scifact"]) {
    const collection = catalog.resolveCollection(name) as PlainCollection;
    for await (const d of readCollectionDocuments(collection, config.dataRoot)) {
      if ("deleted" in d) continue;
      const text = d.sections.map((s) => s.text).join(" ");
      if (text.split(/\s+/).length < 40) continue;
      docs.push({
        collection: name,
        docId: d.doc_id,
        title: d.title ?? "",
        text: text.split(/\s+/).slice(0, 220).join(" "),
      });
    }
  }
  const pairs: unknown[] = [];
  for (const [query, topic, better, worse] of QUERIES) {
    // a document "with and without" the qualifier is about both: no side of a pair
    const onTopic = docs.filter(
      (d) =>
        topic.every((w) => w.test(`${d.title} ${d.text}`)) &&
        !/\bwith (?:and|or) without\b/i.test(`${d.title} ${d.text}`),
    );
    const good = onTopic.filter((d) => better.test(`${d.title} ${d.text}`) && !worse.test(`${d.title} ${d.text}`));
    const bad = onTopic.filter((d) => worse.test(`${d.title} ${d.text}`) && !better.test(`${d.title} ${d.text}`));
    for (let i = 0; i < Math.min(3, good.length, bad.length); i++)
      pairs.push({ query, better: good[i], worse: bad[i] });
  }
  process.stdout.write(`${JSON.stringify(pairs, null, 1)}\n`);
}
main();
