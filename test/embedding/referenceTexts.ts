// The fixed texts whose reference vectors (scripts/reference-vectors.ts) the embedder is held to on every CPU:
// queries (embedded with the model's query instruction) and passages as ingestion embeds them (title, newline, chunk).
import { join } from "node:path";

export const REFERENCE_VECTORS_FILE = join(
  import.meta.dirname,
  "..",
  "fixtures",
  "embedding",
  "reference-vectors.json",
);

export interface ReferenceText {
  kind: "query" | "passage";
  text: string;
}

export const REFERENCE_TEXTS: readonly ReferenceText[] = [
  { kind: "query", text: "vitamin D supplementation and fracture risk" },
  { kind: "query", text: "Does hair cortisol reflect chronic stress?" },
  { kind: "query", text: "emicizumab for haemophilia A with inhibitors" },
  { kind: "query", text: "DBT borderline personality disorder randomized trial" },
  { kind: "query", text: "mesenchymal stem cells knee osteoarthritis" },
  { kind: "query", text: "Which cardiology journals do you have?" },
  { kind: "query", text: "p53" },
  { kind: "query", text: "Ångström-scale résumé of naïve T-cell β-catenin signalling (IL-2, 10 µg/ml)" },
  { kind: "passage", text: "The weather is lovely today." },
  { kind: "passage", text: "It's so sunny outside!" },
  { kind: "passage", text: "He drove to the stadium." },
  {
    kind: "passage",
    text:
      "Hair cortisol as a biological marker of chronic stress: current status, future directions and unanswered " +
      "questions\nHair cortisol analysis offers a retrospective calendar of cortisol exposure over months, " +
      "unlike saliva, urine or blood, which reflect minutes to hours.",
  },
  {
    kind: "passage",
    text:
      "Emicizumab prophylaxis in hemophilia A with inhibitors\nIn this phase 3 trial, once-weekly subcutaneous " +
      "emicizumab prophylaxis was associated with a significantly lower bleeding rate than no prophylaxis among " +
      "participants with hemophilia A with inhibitors.",
  },
  {
    kind: "passage",
    text:
      "Dialectical behavior therapy for suicidal behaviors and borderline personality disorder\nTwo-year " +
      "randomized controlled trial and follow-up of dialectical behavior therapy versus therapy by experts. DBT " +
      "was associated with a halving of the rate of suicide attempts.",
  },
  {
    kind: "passage",
    text: (
      "Microstructural development of human newborn cerebral white matter assessed in vivo by diffusion tensor " +
      "magnetic resonance imaging\nAlterations of the architecture of cerebral white matter in the developing " +
      "human brain can affect cortical development and result in functional disabilities. "
    ).repeat(4),
  },
  { kind: "passage", text: "x" },
  { kind: "passage", text: "" },
  {
    kind: "passage",
    text:
      "Efficacy of a 12-week course of 50,000 IU cholecalciferol: a double-blind RCT (n = 2,686; HR 0.78, 95% CI " +
      "0.61–0.99; p = 0.04)\nResults: fractures occurred in 7.4% vs. 9.1% of participants.",
  },
];
