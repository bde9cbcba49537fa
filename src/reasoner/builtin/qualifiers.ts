// The query's qualifiers read against a candidate, NegEx-style: a qualifier the query asks for ("with factor VIII
// inhibitors", "in children") that the candidate only mentions negated ("no ... inhibitors", "without inhibitors") or
// contradicts (a study of adults only) is a conflict, and the judge scores such a candidate below one that matches it.
import { analyzeEnglish } from "../../text/englishAnalyzer.js";

/** NegEx triggers that negate what follows them within a few words. */
const NEGATION_BEFORE = new RegExp(
  String.raw`\b(?:no|not|non|without|absence of|absent|free of|negative for|lack of|lacking|lacked` +
    String.raw`|never|neither|nor|none|excluding|excluded|except|devoid of|ruled out|denies|denied` +
    String.raw`|did not have|had no)\b`,
  "gi",
);
/** Words that end a trigger's scope ("no bleeding but inhibitors developed"). */
const SCOPE_END = /\b(?:but|however|although|though|whereas|while|yet|except that|which|who)\b|[;:.]/i;
/** How many words after a trigger it still negates. */
const SCOPE_WORDS = 6;

/** Population groups a query may name: naming one and finding only another in a study is a contradiction. */
const POPULATIONS: readonly { name: string; words: RegExp }[] = [
  {
    name: "children",
    words: new RegExp(
      String.raw`\b(?:child|children|childhood|paediatric|pediatric|infants?|toddlers?|neonates?|neonatal` +
        String.raw`|newborns?|adolescents?|adolescence|kids|boys|girls|schoolchildren|juvenile)\b`,
      "i",
    ),
  },
  {
    name: "adults",
    words:
      /\b(?:adults?|adulthood|elderly|older (?:adults|people|patients|persons|women|men)|geriatric|middle-aged)\b/i,
  },
];
const SEXES: readonly { name: string; words: RegExp }[] = [
  {
    name: "women",
    words: /\b(?:women|woman|females?|postmenopausal|premenopausal|menopausal|pregnan(?:t|cy)|mothers?|girls)\b/i,
  },
  { name: "men", words: /\b(?:men|man|males?|boys|fathers?)\b/i },
];

interface Qualifier {
  /** the words as the query says them */
  text: string;
  /** stems the candidate must mention */
  stems: string[];
  /** true for "without X": the query asks for its absence */
  negated: boolean;
}

/** "with X" and "without X" phrases of the query: up to four words after the cue, to the next break. */
export function queryQualifiers(query: string): Qualifier[] {
  const qualifiers: Qualifier[] = [];
  for (const match of query.matchAll(/\b(with|without|no)\s+((?:[\p{L}\p{N}-]+\s*){1,4})/giu)) {
    const words = match[2]!.split(/\s+/).filter(Boolean);
    const cut = words.findIndex(
      (w, i) => i > 0 && /^(?:and|or|in|for|on|at|to|versus|vs|compared|who|which|that|than)$/i.test(w),
    );
    const phrase = (cut > 0 ? words.slice(0, cut) : words).join(" ");
    // the phrase's head: its last content word names what must be present ("factor VIII inhibitors" -> inhibitor)
    const stems = analyzeEnglish(phrase);
    if (stems.length === 0) continue;
    qualifiers.push({ text: phrase, stems: [stems[stems.length - 1]!], negated: match[1]!.toLowerCase() !== "with" });
  }
  return qualifiers;
}

interface Mention {
  negated: boolean;
  /** directly after "with" ("patients with inhibitors") */
  withCue: boolean;
}

/** Each mention of a stem in `text`, negated when a trigger precedes it within the trigger's scope. */
function mentions(text: string, stem: string): Mention[] {
  const found: Mention[] = [];
  const words = [...text.matchAll(/[\p{L}\p{N}-]+/gu)];
  for (const word of words) {
    if (!analyzeEnglish(word[0]).includes(stem)) continue;
    const before = text.slice(Math.max(0, word.index! - 80), word.index!);
    const lastTrigger = [...before.matchAll(NEGATION_BEFORE)].pop();
    let negated = false;
    if (lastTrigger) {
      const between = before.slice(lastTrigger.index! + lastTrigger[0].length);
      negated = !SCOPE_END.test(between) && between.split(/\s+/).filter(Boolean).length <= SCOPE_WORDS;
    }
    found.push({ negated, withCue: /\bwith\s+(?:[\p{L}\p{N}-]+\s+){0,3}$/iu.test(before) && !negated });
  }
  return found;
}

/** The groups of `groups` the text names. */
const groupsIn = (text: string, groups: readonly { name: string; words: RegExp }[]) =>
  new Set(groups.filter((g) => g.words.test(text)).map((g) => g.name));

/**
 * "new-onset type 2 diabetes", "incident dementia", "risk of developing asthma": the query asks who comes to have a
 * condition, so a study only of people who already have it answers another question. ("Developing" alone is not a cue:
 * "in developing countries".)
 */
const ONSET = new RegExp(
  String.raw`\b(?:new[- ]onset|incident|(?:risk|odds|likelihood|chance|probability|incidence) of developing)` +
    String.raw`\s+((?:[\p{L}\p{N}-]+\s*){1,4})`,
  "giu",
);
/** A mention of the condition as an event: its onset, incidence, risk or diagnosis, in the few words around it. */
const ONSET_BEFORE = new RegExp(
  String.raw`\b(?:new[- ]onset|incident|onset of|develop\w*|risk of|incidence of|cases of|diagnos\w*|progress\w* to)` +
    String.raw`\s+(?:[\p{L}\p{N}-]+\s+){0,3}$`,
  "iu",
);
const ONSET_AFTER = /^[\p{L}\p{N}-]*(?:\s+[\p{L}\p{N}-]+){0,1}\s+(?:incidence|onset|risk|diagnos\w*)\b/iu;

/** The stems of the conditions whose onset the query asks about: each phrase's last content word. */
function onsetConditions(query: string): string[] {
  const stems: string[] = [];
  for (const match of query.matchAll(ONSET)) {
    const words = match[1]!.split(/\s+/).filter(Boolean);
    const cut = words.findIndex((w, i) => i > 0 && /^(?:and|or|in|for|among|after|with|during|than)$/i.test(w));
    const phrase = analyzeEnglish((cut > 0 ? words.slice(0, cut) : words).join(" "));
    if (phrase.length > 0) stems.push(phrase[phrase.length - 1]!);
  }
  return stems;
}

/**
 * Whether the text mentions the condition only as what its participants already have ("in patients with type 2
 * diabetes"), never as an event (its onset, incidence, risk, development or diagnosis).
 */
function onlyAlreadyHad(text: string, stem: string): boolean {
  const words = [...text.matchAll(/[\p{L}\p{N}-]+/gu)].filter((w) => analyzeEnglish(w[0]).includes(stem));
  if (words.length === 0) return false;
  return words.every((word) => {
    const before = text.slice(Math.max(0, word.index! - 80), word.index!);
    const after = text.slice(word.index!, word.index! + 60);
    const asEvent = ONSET_BEFORE.test(before) || ONSET_AFTER.test(after);
    return !asEvent && /\bwith\s+(?:[\p{L}\p{N}-]+\s+){0,3}$/iu.test(before);
  });
}

/**
 * Whether the candidate conflicts with a qualifier of the query: it mentions a "with" qualifier only negated, says
 * "with X" where the query asks "without X", studies only people who already have the condition whose onset the query
 * asks about, or names only another population (children / adults, women / men) than the one the query names. A
 * title that mentions the qualifier decides alone: it names the study's population, while an abstract's other mentions
 * may be outside a negation's reach ("no thrombotic events, development of antidrug antibodies, or new development of
 * factor VIII inhibitors") or about other patients.
 */
export function qualifierConflict(query: string, candidateText: string, title?: string | null): boolean {
  for (const qualifier of queryQualifiers(query)) {
    for (const stem of qualifier.stems) {
      const inTitle = title ? mentions(title, stem) : [];
      const found = inTitle.length > 0 ? inTitle : mentions(candidateText, stem);
      if (found.length === 0) continue;
      if (!qualifier.negated && found.every((m) => m.negated)) return true;
      if (qualifier.negated && found.some((m) => m.withCue) && !found.some((m) => m.negated)) return true;
    }
  }
  // asked who comes to have a condition, a study of people who all have it already answers another question
  if (onsetConditions(query).some((stem) => onlyAlreadyHad(candidateText, stem))) return true;
  return populationConflict(query, candidateText);
}

/**
 * Whether the candidate names only another population than the one the query names (children / adults, women / men):
 * "bariatric surgery in adolescents" and a text that speaks of adults and never of children or adolescents. Such a
 * study does not answer the question, whatever else it shares with it: the judge never verifies it.
 */
export function populationConflict(query: string, candidateText: string): boolean {
  for (const groups of [POPULATIONS, SEXES]) {
    const asked = groupsIn(query, groups);
    if (asked.size !== 1) continue;
    const named = groupsIn(candidateText, groups);
    if (named.size > 0 && ![...asked].some((g) => named.has(g))) return true;
  }
  return false;
}

/** A conflicting candidate's probability is scaled by this: it ranks below candidates that match the qualifier. */
export const QUALIFIER_CONFLICT_FACTOR = 0.5;
