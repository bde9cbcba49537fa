// Which journals a topic names by subject: the topic read against the subject classification the documents carry
// (OpenAlex concepts, MeSH headings; counted per journal in the collection's inventory) and against journal titles,
// with the sentence each match is reported by (`matchedBy`). Pure.
import { analyzeEnglish } from "../../text/englishAnalyzer.js";
// a journal is on a subject when at least SUBJECT_MIN_SHARE of its documents here carries it: a cardiology journal,
// not a menopause journal with a few papers on cardiovascular risk
import { SUBJECT_MIN_SHARE, type SubjectCount, type SubjectScheme } from "../../domain/inventory.js";

const SCHEME_NAMES: Record<SubjectScheme, string> = { openalex_concept: "OpenAlex concept", mesh: "MeSH heading" };

/** Whether a subject or title names the topic: it holds every word of the topic (stemmed) and at most one more. */
type TopicReader = (name: string) => boolean;

export function topicReader(topic: string): TopicReader | null {
  const wanted = new Set(analyzeEnglish(topic));
  if (wanted.size === 0) return null;
  const cache = new Map<string, boolean>();
  return (name) => {
    let named = cache.get(name);
    if (named === undefined) {
      const terms = new Set(analyzeEnglish(name));
      named = terms.size <= wanted.size + 1 && [...wanted].every((t) => terms.has(t));
      cache.set(name, named);
    }
    return named;
  };
}

/** A title names a topic when its words hold the topic's, whatever else it says ("Journal of Nuclear Cardiology"). */
function titleNamesTopic(topic: string, title: string): boolean {
  const wanted = analyzeEnglish(topic);
  const terms = new Set(analyzeEnglish(title));
  return wanted.length > 0 && wanted.every((t) => terms.has(t));
}

interface SubjectMatch {
  /** documents of the journal on the subject (all of them when its title names the topic) */
  documents: number;
  /** documents of the journal in the collection */
  of: number;
  /** e.g. `subject: Cardiology (OpenAlex concept, 3 of 3 works)` */
  matchedBy: string;
}

/**
 * The match of one journal (its title, its subjects counted over its `documents`), or null when it is not on the topic:
 * its title names the topic, or a subject naming it covers at least SUBJECT_MIN_SHARE of its documents.
 */
export function subjectMatchOf(
  read: TopicReader,
  topic: string,
  journal: { title: string; documents: number; subjects: Iterable<SubjectCount> },
): SubjectMatch | null {
  let best: SubjectCount | null = null;
  for (const s of journal.subjects) if (read(s.name) && (!best || s.documents > best.documents)) best = s;
  const byTitle = titleNamesTopic(topic, journal.title);
  const bySubject = best !== null && best.documents >= SUBJECT_MIN_SHARE * journal.documents;
  if (!byTitle && !bySubject) return null;
  const reasons = [
    ...(byTitle ? [`title: names ${topic}`] : []),
    ...(bySubject
      ? [`subject: ${best!.name} (${SCHEME_NAMES[best!.scheme]}, ${best!.documents} of ${journal.documents} works)`]
      : []),
  ];
  return {
    documents: byTitle ? journal.documents : best!.documents,
    of: journal.documents,
    matchedBy: reasons.join("; "),
  };
}

/**
 * Ranking weight of a subject match: the documents the journal holds on the subject (how much content it holds on the
 * topic), ties broken by its share on it with one document of doubt added (3 of 3 before 3 of 7, 1 of 1 before 1 of 4).
 */
export const subjectWeight = (m: SubjectMatch): number => m.documents + m.documents / (m.of + 1);
