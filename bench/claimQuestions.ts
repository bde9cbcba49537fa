// A researcher's question about a claim, written by rule for the benchmarks: "ALDH1 expression is associated with poor
// prognosis in breast cancer." becomes "Is ALDH1 expression associated with poor prognosis in breast cancer?", and
// "Vitamin D supplementation reduces fracture risk." becomes "Does vitamin D supplementation reduce fracture risk?".
// A claim the rule cannot turn is asked as "Is there evidence that ...?". The service never reads this file: the
// questions measure whether the judge delivers the same documents for a claim and for the question asked about it.

const AUXILIARIES = new Set([
  "is",
  "are",
  "was",
  "were",
  "can",
  "could",
  "may",
  "might",
  "will",
  "would",
  "should",
  "has",
  "have",
  "had",
  "does",
  "do",
  "did",
]);

/** Verbs claims use, third person singular to base form; a plural subject uses the base form already. */
const VERBS: Record<string, string> = {
  increases: "increase",
  decreases: "decrease",
  reduces: "reduce",
  causes: "cause",
  induces: "induce",
  inhibits: "inhibit",
  promotes: "promote",
  regulates: "regulate",
  improves: "improve",
  leads: "lead",
  results: "result",
  prevents: "prevent",
  correlates: "correlate",
  binds: "bind",
  activates: "activate",
  mediates: "mediate",
  requires: "require",
  affects: "affect",
  enhances: "enhance",
  protects: "protect",
  contributes: "contribute",
  impairs: "impair",
  lowers: "lower",
  raises: "raise",
  suppresses: "suppress",
  blocks: "block",
  controls: "control",
  drives: "drive",
  triggers: "trigger",
  predicts: "predict",
  confers: "confer",
  interacts: "interact",
  modulates: "modulate",
  encodes: "encode",
  produces: "produce",
  reverses: "reverse",
  restores: "restore",
  occurs: "occur",
  depends: "depend",
  plays: "play",
  shows: "show",
  exhibits: "exhibit",
  lacks: "lack",
  contains: "contain",
  limits: "limit",
  worsens: "worsen",
  attenuates: "attenuate",
  facilitates: "facilitate",
  represses: "repress",
  stimulates: "stimulate",
  delays: "delay",
  alters: "alter",
};
const PLURAL_VERBS = new Set(Object.values(VERBS));

const lowerFirst = (text: string): string =>
  /^[A-Z][a-z]/.test(text) && !/^[A-Z][a-z]*[A-Z0-9]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
const upperFirst = (text: string): string => text[0]!.toUpperCase() + text.slice(1);

/** The question a researcher would ask about the claim. */
export function questionOfClaim(claim: string): string {
  const text = claim.trim().replace(/[.!]+$/, "");
  const words = text.split(/\s+/);
  // the first auxiliary after a subject of at least one word moves to the front
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!.toLowerCase();
    if (AUXILIARIES.has(word)) {
      const subject = lowerFirst(words.slice(0, i).join(" "));
      return `${upperFirst(word)} ${subject} ${words.slice(i + 1).join(" ")}?`;
    }
    const base = VERBS[word];
    if (base) {
      const subject = lowerFirst(words.slice(0, i).join(" "));
      return `Does ${subject} ${base} ${words.slice(i + 1).join(" ")}?`;
    }
    if (PLURAL_VERBS.has(word)) {
      const subject = lowerFirst(words.slice(0, i).join(" "));
      return `Do ${subject} ${word} ${words.slice(i + 1).join(" ")}?`;
    }
  }
  return `Is there evidence that ${lowerFirst(text)}?`;
}
