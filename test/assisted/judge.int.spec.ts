// The built-in judge with the real provisioned embedding model (fails, never skips, when it is missing) on real SciFact
// claims and their evidence: the chunk holding the evidence scores above off-topic text, off-topic text stays under the
// threshold, an off-topic question verifies nothing, and the rationale quotes the chunk.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgeCandidates } from "../../src/reasoner/builtin/judge.js";
import { conceptText, matchedConcepts } from "../../src/reasoner/builtin/concepts.js";
import { DEFAULT_VERDICT_SCALE } from "../../src/reasoner/builtin/verdictScale.js";
import { questionOfClaim } from "../../bench/claimQuestions.js";
import type { Candidate } from "../../src/reasoner/port.js";
import { understandByRules } from "../../src/reasoner/builtin/understanding.js";
import { CatalogueVocabulary } from "../../src/reasoner/builtin/constraints.js";
import { DEFAULT_DATA_ROOT } from "../../src/app/config.js";
import { createOnnxEmbedder, type OnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import { splitSentences } from "../../src/ingest/sentences.js";
import { loadServiceModelManifest } from "../embedding/provisionedModel.js";

/** Train claims with SUPPORT or CONTRADICT evidence (ids of queries.jsonl), varied in subject. */
const CLAIM_IDS = ["2", "123", "264", "381", "530", "647", "780", "902", "1005"];

const OFF_TOPIC_TEXTS = [
  "Stretch the dough by hand, spread crushed San Marzano tomatoes, add fior di latte and basil, and bake the " +
    "pizza for ninety seconds in a wood-fired oven at 450 degrees.",
  "Loosen the wheel nuts before raising the car with the jack, then remove the flat tyre, fit the spare and " +
    "tighten the nuts in a star pattern.",
  "The quarterly earnings call lifted the share price by four percent as investors expected higher iPhone " +
    "sales in the holiday season.",
];

interface Claim {
  id: string;
  text: string;
  /** the evidence sentences and their neighbours: the chunk a search would find */
  evidenceChunk: Candidate;
  evidenceSentences: string[];
}

let embedder: OnnxEmbedder;
let claims: Claim[];
let corpus: Map<string, { title: string; text: string }>;
const vocabulary = new CatalogueVocabulary([]);
const now = new Date("2025-06-15T00:00:00Z");

function candidate(id: string, text: string, title: string | null, subQuestion: string, rank: number): Candidate {
  // one retrieval score for all, so the judge's reading of the text decides
  return { id, collection: "scifact", text, section: null, title, subQuestion, retrievalScore: 0.3, rank };
}

/** Works of the SYNERGY sample by OpenAlex id, each with its abstract read from its inverted index. */
async function openAlexWorks(ids: string[]): Promise<{ id: string; title: string; abstract: string }[]> {
  const file = join(DEFAULT_DATA_ROOT, "articles", "openalex_works.synergy.jsonl.gz");
  const found = new Map<string, { id: string; title: string; abstract: string }>();
  for (const line of gunzipSync(await readFile(file))
    .toString("utf8")
    .split("\n")) {
    if (!line.trim()) continue;
    const work = JSON.parse(line) as { id: string; title: string; abstract_inverted_index: Record<string, number[]> };
    const id = work.id.replace("https://openalex.org/", "");
    if (!ids.includes(id)) continue;
    const words: string[] = [];
    for (const [word, at] of Object.entries(work.abstract_inverted_index)) for (const i of at) words[i] = word;
    found.set(id, { id, title: work.title, abstract: words.join(" ") });
  }
  return ids.map((id) => found.get(id)!);
}

beforeAll(async () => {
  embedder = await createOnnxEmbedder({ manifest: await loadServiceModelManifest(), batchSize: 16, threads: 2 });
  const dir = join(DEFAULT_DATA_ROOT, "scifact");
  corpus = new Map<string, { title: string; text: string }>();
  for (const line of (await readFile(join(dir, "corpus.jsonl"), "utf8")).split("\n")) {
    if (!line.trim()) continue;
    const doc = JSON.parse(line) as { _id: string; title: string; text: string };
    corpus.set(String(doc._id), doc);
  }
  claims = [];
  for (const line of (await readFile(join(dir, "queries.jsonl"), "utf8")).split("\n")) {
    if (!line.trim()) continue;
    const q = JSON.parse(line) as { _id: string; text: string; metadata: Record<string, { sentences: number[] }[]> };
    if (!CLAIM_IDS.includes(String(q._id))) continue;
    const [docId, sets] = Object.entries(q.metadata)[0]!;
    const doc = corpus.get(docId)!;
    const sentences = splitSentences(doc.text);
    const wanted = sets.flatMap((s) => s.sentences);
    const from = Math.max(0, Math.min(...wanted) - 1);
    const to = Math.min(sentences.length, Math.max(...wanted) + 2);
    claims.push({
      id: String(q._id),
      text: q.text,
      evidenceChunk: candidate(`doc-${docId}`, sentences.slice(from, to).join(" "), doc.title, q.text, 1),
      evidenceSentences: wanted.map((i) => sentences[i]!).filter(Boolean),
    });
  }
  expect(claims).toHaveLength(CLAIM_IDS.length);
});

afterAll(async () => {
  await embedder?.close();
});

describe("built-in judge on SciFact evidence", () => {
  it("scores the evidence above off-topic text, which stays under the threshold", async () => {
    let verifiedEvidence = 0;
    for (const claim of claims) {
      const understanding = understandByRules({ query: claim.text, callerFilters: null }, { vocabulary, now });
      const offTopic = OFF_TOPIC_TEXTS.map((text, i) =>
        candidate(`off-${i}`, text, null, claim.text, i === 0 ? 0 : i + 1),
      );
      const verdicts = await judgeCandidates({ embedder }, claim.text, understanding, [
        offTopic[0]!,
        claim.evidenceChunk,
        ...offTopic.slice(1),
      ]);
      const evidence = verdicts[1]!;
      for (const off of [verdicts[0]!, ...verdicts.slice(2)]) {
        expect(evidence.judgeScore, `${claim.id}: ${claim.text}`).toBeGreaterThan(off.judgeScore);
        expect(off.verified).toBe(false);
        expect(off.judgeScore).toBeLessThan(DEFAULT_VERDICT_SCALE.floor);
      }
      if (evidence.verified) verifiedEvidence++;
      expect(evidence.answeredBy).toBe("builtin");
      // the rationale quotes a sentence of the chunk's text, or its title named as the title
      const quoted = /"(.+)"/.exec(evidence.rationale)?.[1]?.replace(/…$/, "") ?? "";
      expect(quoted.length).toBeGreaterThan(20);
      expect(
        evidence.rationale.includes("the document's title") ? claim.evidenceChunk.title : claim.evidenceChunk.text,
      ).toContain(quoted.slice(0, 60));
      for (const term of evidence.matchedTerms)
        expect(`${claim.evidenceChunk.title}\n${claim.evidenceChunk.text}`.toLowerCase()).toContain(term.toLowerCase());
    }
    // most evidence chunks are verified on their own (calibrated on whole candidate lists, so not necessarily all)
    expect(verifiedEvidence).toBeGreaterThanOrEqual(Math.ceil(claims.length / 2));
  });

  it("quotes only text the row carries: a title it matched on is named as the title, not as text", async () => {
    const title = "Emicizumab prophylaxis in hemophilia A with inhibitors";
    const query = "emicizumab prophylaxis in hemophilia A with inhibitors";
    const understanding = understandByRules({ query, callerFilters: null }, { vocabulary, now });
    const [verdict] = await judgeCandidates({ embedder }, query, understanding, [
      candidate("short", "However, further randomized clinical trials may be needed.", title, query, 0),
    ]);
    expect(verdict!.rationale).toContain(`the document's title, "${title}"`);
    expect(verdict!.rationale).not.toMatch(/^Best evidence: "Emicizumab/);
  });

  it("orders qualifier pairs right more often with qualifiers: a negated or contradicted match is lower", async () => {
    const pairs = JSON.parse(await readFile(new URL("../../bench/qualifierPairs.json", import.meta.url), "utf8")) as {
      query: string;
      better: { title: string; text: string };
      worse: { title: string; text: string };
    }[];
    expect(pairs.length).toBeGreaterThanOrEqual(50);
    const right = { before: 0, after: 0 };
    for (const pair of pairs) {
      const understanding = understandByRules({ query: pair.query, callerFilters: null }, { vocabulary, now });
      const pool = [
        candidate("better", pair.better.text, pair.better.title, pair.query, 0),
        candidate("worse", pair.worse.text, pair.worse.title, pair.query, 0),
      ];
      for (const key of ["before", "after"] as const) {
        const [better, worse] = await judgeCandidates(
          { embedder, readQualifiers: key === "after" },
          pair.query,
          understanding,
          pool,
        );
        if (better!.judgeScore > worse!.judgeScore) right[key] += 1;
      }
    }
    expect(right.after).toBeGreaterThan(right.before);
    expect(right.after / pairs.length).toBeGreaterThanOrEqual(0.85);
  }, 300_000);

  it("never verifies a study of another population than the one asked about", async () => {
    const query = "What are the outcomes of bariatric surgery in adolescents?";
    const understanding = understandByRules({ query, callerFilters: null }, { vocabulary, now });
    const pool = [
      candidate(
        "adults",
        "The 2013 guidelines increased the number of adults recommended for weight loss treatment by 20.9%. " +
          "Bariatric surgery remains the most effective treatment for severe obesity in adults.",
        "Gastrointestinal traits: individualizing therapy for obesity with drugs and devices",
        query,
        0,
      ),
      candidate(
        "adolescents",
        "Bariatric surgery in adolescents with severe obesity led to substantial weight loss and remission of type 2 " +
          "diabetes and hypertension over five years of follow-up.",
        "Five-year outcomes of gastric bypass in adolescents with severe obesity",
        query,
        1,
      ),
    ];
    const read = await judgeCandidates({ embedder }, query, understanding, pool);
    expect(read.map((v) => [v.id, v.verified])).toEqual([
      ["adults", false],
      ["adolescents", true],
    ]);
    // alone (the collection holds nothing on adolescents), the adults' study is verified only without the reading of
    // populations: the rule is what leaves it out, and the answer is then no_relevant_results
    const alone = [pool[0]!];
    expect((await judgeCandidates({ embedder }, query, understanding, alone))[0]!.verified).toBe(false);
    const unread = await judgeCandidates({ embedder, readQualifiers: false }, query, understanding, alone);
    expect(unread[0]!.verified).toBe(true);
  });

  it("asks a subject of two words by its rarer word: HRT and ovarian cancer names no bladder cancer", async () => {
    // an audit's question, which the collection answers with no document: it was charged two rows naming only HRT
    const query = "Does hormone replacement therapy increase the risk of bladder cancer?";
    const understanding = understandByRules({ query, callerFilters: null }, { vocabulary, now });
    const pool = [
      candidate(
        "ovarian",
        "Among 44,241 postmenopausal women, hormone replacement therapy with estrogen only was associated with an " +
          "increased risk of ovarian cancer (relative risk 1.6), rising with the duration of use.",
        "Menopausal Hormone Replacement Therapy and Risk of Ovarian Cancer",
        query,
        0,
      ),
      candidate(
        "endometrial",
        "Women receiving hormone replacement therapy had a higher incidence of endometrial cancer and a lower " +
          "incidence of colon cancer than expected in the Swedish cohort.",
        "Cancer incidence and mortality in women receiving estrogen and estrogen-progestin replacement therapy",
        query,
        1,
      ),
      candidate(
        "pioglitazone",
        "Pioglitazone use for more than two years was associated with an increased risk of bladder cancer in " +
          "patients with type 2 diabetes (hazard ratio 1.4).",
        "Pioglitazone and risk of bladder cancer",
        query,
        2,
      ),
    ];
    const read = await judgeCandidates({ embedder }, query, understanding, pool);
    expect(read.map((v) => [v.id, v.verified])).toEqual([
      ["ovarian", false],
      ["endometrial", false],
      ["pioglitazone", false],
    ]);
  });

  it("never verifies a study whose title contradicts what the question asks with or without", async () => {
    // an audit's two questions: each was charged for the studies its title rules out
    const cases = [
      {
        query:
          "Does emicizumab prophylaxis reduce bleeding rates in people with hemophilia A with factor VIII inhibitors?",
        title: "Emicizumab Prophylaxis in Patients Who Have Hemophilia A without Inhibitors",
        text:
          "In the intraindividual comparison involving 48 participants, emicizumab prophylaxis resulted in an " +
          ("annualized bleeding rate that was 68% lower than the rate with previous factor VIII prophylaxis. " +
            "There were ") +
          "no thrombotic events, development of antidrug antibodies, or new development of factor VIII inhibitors.",
      },
      {
        query: "Outcomes of stem cell therapy for knee osteoarthritis without high tibial osteotomy",
        title:
          "High Tibial Osteotomy in Combination With Chondrogenesis After Stem Cell Therapy: A Histologic " +
          "Report of 8 " +
          "Cases",
        text:
          "Stem cell therapy for osteoarthritis of the knee combined with high tibial osteotomy regenerated " +
          "cartilage " +
          "in eight knees, with hyaline-like tissue on second-look arthroscopy.",
      },
    ];
    for (const c of cases) {
      const understanding = understandByRules({ query: c.query, callerFilters: null }, { vocabulary, now });
      const alone = [candidate("study", c.text, c.title, c.query, 0)];
      expect((await judgeCandidates({ embedder }, c.query, understanding, alone))[0]!.verified, c.title).toBe(false);
      const unread = await judgeCandidates({ embedder, readQualifiers: false }, c.query, understanding, alone);
      expect(unread[0]!.verified, c.title).toBe(true);
    }
  });

  it("reads a claim and the same claim asked as a question alike: the same verified rows, no priority", async () => {
    const pool = claims.map((c, i) => ({ ...c.evidenceChunk, retrievalScore: 0.5, rank: i }));
    let verifiedClaims = 0;
    for (const claim of claims) {
      const verified = async (query: string) => {
        const understanding = understandByRules({ query, callerFilters: null }, { vocabulary, now });
        const verdicts = await judgeCandidates({ embedder }, query, understanding, pool);
        // every verdict is ordered by the probability it states, whatever the request's form
        expect(verdicts.every((v) => v.priority === undefined)).toBe(true);
        return verdicts.filter((v) => v.verified).map((v) => v.id);
      };
      const asClaim = await verified(claim.text);
      expect(await verified(questionOfClaim(claim.text)), claim.text).toEqual(asClaim);
      if (asClaim.includes(claim.evidenceChunk.id)) verifiedClaims++;
    }
    expect(verifiedClaims).toBeGreaterThanOrEqual(Math.ceil(claims.length / 2));
  });

  it("verifies nothing for an off-topic question, even against real abstracts", async () => {
    for (const question of [
      "best pizza recipe in Naples",
      "how to change a car tyre",
      "stock price of Apple tomorrow",
    ]) {
      const understanding = understandByRules({ query: question, callerFilters: null }, { vocabulary, now });
      const pool = claims.map((c, i) => ({ ...c.evidenceChunk, subQuestion: question, rank: i }));
      const verdicts = await judgeCandidates({ embedder }, question, understanding, pool);
      expect(
        verdicts.filter((v) => v.verified),
        question,
      ).toEqual([]);
    }
  });

  it("verifies no trial for vitamin D whose participants all took it beside the drug it compares", async () => {
    // the row a customer was charged for (SciFact 11246427), among the collection's other vitamin D and fracture works
    const question = "Does vitamin D supplementation reduce fracture risk in older adults?";
    const understanding = understandByRules({ query: question, callerFilters: null }, { vocabulary, now });
    const ids = ["11246427", "4462079", "9555784", "19878070", "36960449"];
    const pool = ids.map((id, i) => candidate(id, corpus.get(id)!.text, corpus.get(id)!.title, question, i));
    const verdicts = await judgeCandidates({ embedder }, question, understanding, pool);
    const alendronate = verdicts[0]!;
    expect(alendronate.matchedTerms).toContain("cholecalciferol");
    expect(alendronate.verified).toBe(false);
    // the same need as keywords reads "vitamin D" as its central concept, and verifies no alendronate trial either
    const keywords = "vitamin D supplementation fracture risk older adults";
    const read = understandByRules({ query: keywords, callerFilters: null }, { vocabulary, now });
    const byKeywords = await judgeCandidates({ embedder }, keywords, read, pool);
    expect(byKeywords[0]!.verified).toBe(false);
  });

  it("verifies no cognitive behaviour therapy trial for a dialectical behaviour therapy question", async () => {
    // the complaint that made the verdict ask for the central concept: "behaviour" alone does not name "dialectical
    // behaviour", which the candidates' dialectical behaviour therapy trials name whole (concepts.ts distinctiveUnit)
    const question = "randomized trials of dialectical behaviour therapy for borderline personality disorder";
    const understanding = understandByRules({ query: question, callerFilters: null }, { vocabulary, now });
    const works = await openAlexWorks(["W2127310271", "W2551164964", "W2117242228", "W2006034893", "W2070879988"]);
    const pool = works.map((w, i) => candidate(w.id, w.abstract, w.title, question, i));
    const verdicts = await judgeCandidates({ embedder }, question, understanding, pool);
    expect(verdicts.slice(2).map((v) => v.verified)).toEqual([false, false, false]);
    expect(verdicts.slice(0, 2).some((v) => v.verified)).toBe(true);
  });

  it("verifies no other drug's biosimilar trial for a drug none of the candidates names", async () => {
    // a customer's complaint: "omalizumab biosimilar clinical equivalence trial" verified and charged an adalimumab
    // biosimilar trial, since "biosimilar" and "equivalence" were half the concept's words (concepts.ts absentOf)
    const works = await openAlexWorks(["W2952089805", "W3082722049", "W2480851940", "W2951647574"]);
    const verdictsFor = async (query: string) => {
      const understanding = understandByRules({ query, callerFilters: null }, { vocabulary, now });
      const pool = works.map((w, i) => candidate(w.id, w.abstract, w.title, query, i));
      return judgeCandidates({ embedder }, query, understanding, pool);
    };
    const omalizumab = await verdictsFor("omalizumab biosimilar clinical equivalence trial");
    expect(omalizumab.map((v) => v.verified)).toEqual([false, false, false, false]);
    // the drug the AURIEL-PsO trial is of: verified
    const adalimumab = await verdictsFor("adalimumab biosimilar clinical equivalence trial");
    expect(adalimumab[0]!.verified).toBe(true);
  });

  it("verifies no trial's protocol for a request asking what the treatment's studies found", async () => {
    // an audit was charged for two protocols for "mentalization-based treatment outcomes", ranked above the 8-year
    // follow-up of a trial
    const works = await openAlexWorks(["W2470920290", "W2092999504", "W2127375334", "W2056108412"]);
    const query = "mentalization-based treatment outcomes";
    const understanding = understandByRules({ query, callerFilters: null }, { vocabulary, now });
    const pool = works.map((w, i) => candidate(w.id, w.abstract, w.title, query, i));
    const read = await judgeCandidates({ embedder }, query, understanding, pool);
    expect(read.slice(0, 2).map((v) => v.verified)).toEqual([false, false]);
    expect(read.slice(2).some((v) => v.verified)).toBe(true);
    // the rule is what leaves them out: without the reading, a protocol is verified
    const unread = await judgeCandidates({ embedder, readQualifiers: false }, query, understanding, pool);
    expect(unread.slice(0, 2).some((v) => v.verified)).toBe(true);
  });

  it("names matched entities as the chunk writes them, whole, never a fragment", () => {
    const chunk = {
      title: "Vitamin D and falls",
      text: "Cholecalciferol supplementation lowered the rate of hip fractures among elderly women.",
    };
    expect(
      matchedConcepts(["vitamin D", "hip fracture", "older adults"], conceptText(chunk.title, chunk.text)),
    ).toEqual(["Vitamin D", "hip fractures", "elderly"]);
  });
});
