// The nearest valid name to a misspelled one, so an error can name the fix: collections, filter fields, key scopes.

/** Lower case without separators: "SciFact", "sci-fact" and "sci_fact" compare equal. */
const normalized = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** Names longer than this (normalized) get no suggestion: a request may send a field name megabytes long. */
const MAX_SUGGESTED_LENGTH = 200;

/** Edit distance with adjacent transpositions (optimal string alignment), so "sicfact" is one edit from "scifact". */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate `input` most likely meant, or undefined when none is close: an alias the caller knows (e.g. "year"
 * for publication_date), the same name spelled differently, a name within a few edits (about one in three
 * characters), or the one name that starts with what was sent. Never `input` itself.
 */
export function nearestName(
  input: string,
  candidates: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): string | undefined {
  const sent = normalized(input);
  // nothing is misspelt at such length, and the edit distance costs its product with each candidate's length
  if (sent.length === 0 || sent.length > MAX_SUGGESTED_LENGTH) return undefined;
  const alias = Object.entries(aliases).find(([from]) => normalized(from) === sent)?.[1];
  if (alias !== undefined && candidates.includes(alias)) return alias;
  const allowed = Math.max(1, Math.floor(sent.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    if (name === input) continue;
    const candidate = normalized(name);
    // the distance is at least the difference in length: a candidate that far off is never suggested
    if (Math.abs(candidate.length - sent.length) > allowed) continue;
    const distance = editDistance(sent, candidate);
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (best && best.distance <= allowed) return best.name;
  const extending = candidates.filter((name) => name !== input && normalized(name).startsWith(sent));
  return sent.length >= 4 && extending.length === 1 ? extending[0] : undefined;
}

/** ` Did you mean "x"?` for the end of an error message, or '' when no candidate is close. */
export function didYouMean(
  input: string,
  candidates: readonly string[],
  aliases?: Readonly<Record<string, string>>,
): string {
  const nearest = nearestName(input, candidates, aliases);
  return nearest === undefined ? "" : ` Did you mean "${nearest}"?`;
}
