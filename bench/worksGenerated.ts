// Generated works for the works bench at scale (bench/works.ts --generated N): realistic OpenAlex-like works (ids,
// DOIs, PMIDs for most, titles, years leaning recent, journals of a skewed size, authorships with OpenAlex ids and
// some ORCIDs, about 30 references each whose targets follow a skewed cited-by distribution: the most cited works are
// cited tens of thousands of times, the median one about twenty), COPYed into the tables ingestion writes as its
// writer (src/ingest/works.ts writeWorks) would fill them. Deterministic: the same N gives the same works.
import type { Db } from "../src/eventstore/db.js";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { analyzeWorks, type StoredWork } from "../src/ingest/works.js";
import { citingOfWork } from "../src/domain/identifiers.js";
import { foldName, type Authorship } from "../src/domain/authors.js";

const WORDS = (
  "stress cortisol sleep memory cohort trial randomized meta-analysis inflammation receptor cell tumor cancer " +
  "immune response adolescent depression anxiety obesity insulin diabetes cardiovascular risk mortality " +
  "protein expression gene pathway signaling mouse model brain cortex neural network learning climate soil " +
  "nitrogen yield crop water microbiome gut bacteria antibiotic resistance vaccine infection viral outcome " +
  "surgery patients children elderly hospital care quality survey national longitudinal association effect"
).split(" ");
const GIVEN = "Anna Ben Carla David Elena Farid Grace Hiro Ines Jonas Kira Liam Maria Nils Olga Pablo Qing Rosa".split(
  " ",
);
const FAMILY = (
  "Smith Müller García Chen Wang Kumar Silva Rossi Nowak Kim Sato Dubois Jensen Ivanova Cohen Okafor Haddad " +
  "Larsen Novak Fischer Moreau Tanaka Zhang Li Liu Yang Huang Zhao Wu Zhou Xu Sun Ma Hu Guo He Lin Gao Luo"
).split(" ");
const TYPES = ["article", "article", "article", "article", "review", "letter", "editorial"];

/** A seeded generator (mulberry32): the same seed, the same works. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The OpenAlex id, DOI and PMID of generated work i (a PMID for four works in five). */
export const generatedIds = (i: number) => ({
  openalex: `W${4_000_000_000 + i}`,
  doi: `10.${5000 + (i % 900)}/gen.${i}`,
  pmid: i % 5 === 4 ? null : String(30_000_000 + i),
});

/** The rank-r most cited work's index: a bijection of 0..n-1 (a multiplier prime to n), so ranks scatter over ids. */
export function workOfRank(rank: number, n: number): number {
  let step = 7_919;
  while (gcd(step, n) !== 1) step += 2;
  return Number((BigInt(rank) * BigInt(step)) % BigInt(n));
}
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Citations per rank: a reference's target rank is floor(n * u^2), so rank r is cited about E / (2 sqrt(r n)) times
 * of E edges (with n = 10^6 and 30 references each: rank 0 about 30,000 times, rank 100 about 1,500, the median 20).
 */
export const citedRank = (u: number, n: number) => Math.min(n - 1, Math.floor(n * u * u));

/** How many authors the works draw from, and an author's id: productivity skewed, so some have hundreds of works. */
const authorPool = (n: number) => Math.max(1_000, Math.floor(n * 1.5));
const authorOf = (u: number, n: number) => Math.min(authorPool(n) - 1, Math.floor(authorPool(n) * u ** 1.7));
const authorName = (a: number) => `${GIVEN[a % GIVEN.length]} ${FAMILY[Math.floor(a / GIVEN.length) % FAMILY.length]}`;
const orcidOf = (a: number) => {
  const digits = String(1_000_000_000_000 + a * 7).slice(-15);
  return `0000-${digits.slice(3, 7)}-${digits.slice(7, 11)}-${digits.slice(11, 15)}`;
};

/** Generated work i of n. */
export function generatedWork(i: number, n: number): StoredWork {
  const random = seeded(i * 2 + 1);
  const ids = generatedIds(i);
  // years leaning recent: half the works from the last nine years
  const year = 2025 - Math.floor(50 * random() ** 2.4);
  const month = 1 + Math.floor(random() * 12);
  const journal = Math.floor(20_000 * random() ** 2.5);
  const listed = 1 + Math.floor(random() * 7);
  const authorships: Authorship[] = Array.from({ length: listed }, (_, k) => {
    const a = authorOf(random(), n);
    return {
      name: authorName(a),
      id: `A${5_000_000_000 + a}`,
      orcid: a % 5 < 2 ? orcidOf(a) : null,
      position: k === 0 ? "first" : k === listed - 1 ? "last" : "middle",
    } as Authorship;
  });
  const title = Array.from({ length: 6 + Math.floor(random() * 8) }, () => WORDS[Math.floor(random() * WORDS.length)]!);
  const count = 15 + Math.floor(random() * 31);
  const references = Array.from({ length: count }, () => ({
    openalex: `W${4_000_000_000 + workOfRank(citedRank(random(), n), n)}`,
  }));
  return {
    docId: `gen-${String(i).padStart(9, "0")}`,
    doi: ids.doi,
    pmid: ids.pmid,
    pmcid: i % 3 === 0 ? `PMC${9_000_000 + i}` : null,
    openalex: ids.openalex,
    searchable: true,
    notices: [],
    fields: {
      title: title.join(" ").replace(/^./, (c) => c.toUpperCase()),
      authors: authorships.map((a) => a.name),
      authorships,
      journal: `Journal of Generated Studies ${journal}`,
      issn: [`${String(1000 + (journal % 9000))}-${String(1000 + (journal % 7919)).slice(0, 4)}`],
      publisher: `Publisher ${journal % 300}`,
      publication_date: `${year}-${String(month).padStart(2, "0")}-15`,
      article_type: TYPES[Math.floor(random() * TYPES.length)]!,
      open_access: random() < 0.45,
      license: random() < 0.4 ? "cc-by" : null,
      url: `https://doi.org/${ids.doi}`,
      cited_by_count: null,
      abstract: null,
      keywords: [],
      mesh: [],
    },
    referencesRecorded: count,
    references,
  };
}

/** A value in COPY's text format: \\N for null, backslash, tab and newline escaped. */
const cell = (v: string | number | boolean | null): string =>
  v === null
    ? "\\N"
    : typeof v !== "string"
      ? String(v)
      : /[\\\t\n]/.test(v)
        ? v.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n")
        : v;
const line = (values: (string | number | boolean | null)[]) => values.map(cell).join("\t");

/** The rows ingestion's writer (src/ingest/works.ts writeWorks) would write for these works, in COPY's text format. */
export function copyRows(indexKey: string, works: readonly StoredWork[]) {
  const rows = { works: [] as string[], work_references: [] as string[], work_authors: [] as string[] };
  const words: string[] = [];
  for (const w of works) {
    rows.works.push(
      line([
        indexKey,
        w.docId,
        w.doi,
        w.pmid,
        w.pmcid,
        w.openalex,
        w.searchable,
        JSON.stringify(w.fields),
        w.referencesRecorded,
        JSON.stringify(w.notices),
        false,
      ]),
    );
    const c = citingOfWork(w.docId, w, w.fields.publication_date);
    w.references.forEach((r, position) => {
      const cited = [r.doi ?? null, r.pmid ?? null, r.openalex ?? null];
      rows.work_references.push(
        line([indexKey, w.docId, position, ...cited, c.date, c.key, c.doi, c.pmid, c.openalex]),
      );
    });
    w.fields.authorships.forEach((a, position) => {
      const folded = foldName(a.name);
      rows.work_authors.push(line([indexKey, w.docId, position, a.name, folded, a.id, a.orcid]));
      if (a.id === null && a.orcid === null) return;
      for (const word of new Set(folded.split(" ").filter((x) => x !== "")))
        words.push(line([indexKey, w.docId, position, word]));
    });
  }
  const text = (xs: string[]) => (xs.length === 0 ? "" : xs.join("\n") + "\n");
  return {
    works: text(rows.works),
    work_references: text(rows.work_references),
    work_authors: text(rows.work_authors),
    work_author_words: text(words),
  };
}

const COPY_COLUMNS = {
  works: "index_key, doc_id, doi, pmid, pmcid, openalex, searchable, fields, refs_recorded, notices, retracted",
  work_references:
    "index_key, doc_id, position, doi, pmid, openalex, citing_date, citing_key, citing_doi, citing_pmid, " +
    "citing_openalex",
  work_authors: "index_key, doc_id, position, name, folded, author_id, orcid",
  work_author_words: "index_key, doc_id, position, word",
} as const;

/**
 * Writes works 0..n-1 into the tables ingestion writes, the way a bulk load does: the works tables' secondary indexes
 * dropped, the rows COPYed from files the server reads (under `dir`, removed after), then the schema's migration run
 * again, which builds every index the schema declares. `migrateAgain` re-runs it.
 */
export async function loadGenerated(
  db: Db,
  options: { indexKey: string; n: number; dir: string; migrateAgain: () => Promise<void> },
  progress: (done: number) => void,
): Promise<{ rowsSeconds: number; indexSeconds: number }> {
  const { indexKey, n, dir } = options;
  const tables = Object.keys(COPY_COLUMNS);
  const indexes = await db.query<{ indexname: string }>(
    `SELECT i.indexname FROM pg_indexes i WHERE i.tablename = ANY($1::text[]) AND i.schemaname = 'public'
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    [tables],
  );
  for (const { indexname } of indexes) await db.query(`DROP INDEX IF EXISTS ${indexname}`);
  // which indexes hold each edge's cited work: filled by the migration from the loaded rows, its index built after
  await db.query("DROP INDEX IF EXISTS work_reference_holds_edge");
  await db.query("TRUNCATE work_reference_holds");
  await db.query("DELETE FROM schema_fills WHERE name = 'work_reference_holds'");
  const started = performance.now();
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  const BATCH = 50_000;
  try {
    for (let from = 0; from < n; from += BATCH) {
      const works = Array.from({ length: Math.min(BATCH, n - from) }, (_, k) => generatedWork(from + k, n));
      const rows = copyRows(indexKey, works);
      for (const table of tables) {
        const file = join(resolve(dir), `${table}.tsv`);
        writeFileSync(file, rows[table as keyof typeof rows]);
        chmodSync(file, 0o644);
        await db.query(`COPY ${table} (${COPY_COLUMNS[table as keyof typeof COPY_COLUMNS]}) FROM '${file}'`);
      }
      progress(from + works.length);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const rowsSeconds = (performance.now() - started) / 1000;
  const indexing = performance.now();
  await options.migrateAgain();
  await analyzeWorks(db);
  return { rowsSeconds, indexSeconds: (performance.now() - indexing) / 1000 };
}
