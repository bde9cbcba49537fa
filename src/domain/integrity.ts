// A work's integrity: what its own source record and the update lists in force say of it (retractions, expressions of
// concern, corrections, errata, withdrawals), as every result row and every work carries it, and the one rule that
// says whether a work is retracted: ingestion keeps a work out of search by it, search leaves out a work flagged since
// by it, and integrity answers `retracted` by it, so the three cannot disagree. Pure: src/ingest/ reads the sources.

type IntegrityStatus = "none" | "corrected" | "expression_of_concern" | "withdrawn" | "retracted";

/**
 * Who recorded a notice: the work's own source record (`openalex`: is_retracted; `medline`: its publication types and
 * CommentsCorrections links; `jsonl`: a source line's `"retracted": true`) or an update list (`crossref`: Crossref's
 * update records, as the open-retractions dump holds them; `retraction_watch`).
 */
export type IntegritySource = "openalex" | "medline" | "jsonl" | "crossref" | "retraction_watch";

/**
 * One notice about a work: its kind, who recorded it, the notice's own DOI and PMID where known, and its date
 * (YYYY-MM-DD) where known.
 */
export interface IntegrityNotice {
  type: string;
  source: IntegritySource;
  doi: string | null;
  pmid: string | null;
  date: string | null;
}

export interface Integrity {
  status: IntegrityStatus;
  notices: IntegrityNotice[];
  /**
   * Whether the update lists could name the work: they name works by DOI, so false for a work without one. Its own
   * source record's flags count either way; with false, `none` says only that the source record flags nothing.
   */
  listsChecked: boolean;
}

/** A work of which nothing was checked against the lists (no DOI, or no record to read), and no notice known. */
export const UNCHECKED_INTEGRITY: Integrity = Object.freeze({
  status: "none",
  notices: [],
  listsChecked: false,
}) as Integrity;
const NO_NOTICE_CHECKED: Integrity = Object.freeze({ status: "none", notices: [], listsChecked: true }) as Integrity;

/**
 * A status in a reader's words: "retracted", "expression of concern"; `none` is "no notice", or "not checked (no DOI)"
 * for a work no list could name, so that a page never shows an unchecked work as clear.
 */
export function integrityWords(integrity: { status?: unknown; listsChecked?: unknown } | null | undefined): string {
  const status = typeof integrity?.status === "string" ? integrity.status : "none";
  if (status !== "none") return status.replace(/_/g, " ");
  return integrity?.listsChecked === false ? "not checked (no DOI)" : "no notice";
}

/**
 * The lists' spellings of an update's kind in one vocabulary: retraction, withdrawal, removal, expression_of_concern,
 * correction, erratum, partial_retraction, reinstatement; anything else lower-case with underscores.
 */
export function noticeType(raw: string | null | undefined): string {
  const t = (raw ?? "")
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  if (/^partial_retra/.test(t)) return "partial_retraction";
  if (/^retra/.test(t) || t === "retration") return "retraction";
  if (/^withdraw/.test(t)) return "withdrawal";
  if (/^remov/.test(t)) return "removal";
  if (/^expression_of_concern/.test(t) || t === "eoc") return "expression_of_concern";
  if (/^correct|^corrigend/.test(t)) return "correction";
  if (/^err/.test(t)) return "erratum";
  if (/^reinstat/.test(t)) return "reinstatement";
  return t || "update";
}

const CORRECTING = new Set(["correction", "erratum", "partial_retraction", "retraction"]);
/** Notices that take a work back from its readers without the lists calling it retracted. */
const WITHDRAWING = new Set(["withdrawal", "removal"]);

/**
 * The notices among these, by the notice's own DOI, whose record a work can be that is withdrawn with its work: a
 * withdrawal's or a removal's (a Cochrane review's withdrawn version).
 */
export function withdrawalsByNoticeDoi(updates: Iterable<readonly IntegrityNotice[]>): Map<string, IntegrityNotice[]> {
  const at = new Map<string, IntegrityNotice[]>();
  for (const notices of updates)
    for (const n of notices) if (n.doi && WITHDRAWING.has(n.type)) at.set(n.doi, [...(at.get(n.doi) ?? []), n]);
  return at;
}

/**
 * A source's own notice of a kind (is_retracted, a MEDLINE link): no notice DOI or date unless the source gives one.
 */
export function sourceNotice(
  type: string,
  source: IntegritySource,
  ids: { doi?: string | null; pmid?: string | null; date?: string | null } = {},
): IntegrityNotice {
  return { type, source, doi: ids.doi ?? null, pmid: ids.pmid ?? null, date: ids.date ?? null };
}

/** The update lists in force, as the retraction rule reads them (by the work's DOI, lower-case). */
export interface ListsInForce {
  /** whether a list flags the work retracted (Retraction Watch's nature "Retraction", Crossref's `retracted: true`) */
  flagsRetracted(doi: string): boolean;
  /** every notice the lists hold about the work */
  noticesOf(doi: string): readonly IntegrityNotice[];
  /** the withdrawal and removal notices whose own DOI this is: the work is that notice's record */
  noticesAt(doi: string): readonly IntegrityNotice[];
}

export const NO_LISTS: ListsInForce = { flagsRetracted: () => false, noticesOf: () => [], noticesAt: () => [] };

/** What the rule reads of a work: its DOI (lower-case) and the notices of its own source record. */
export interface WorkEvidence {
  doi: string | null;
  /** the notices its own source record carries (a retraction notice there means the source flags it retracted) */
  own: readonly IntegrityNotice[];
}

/** A row's work as the rule is asked about it: its DOI (lower-case) and PMID, where it carries them. */
export interface WorkRef {
  doi: string | null;
  pmid: string | null;
}

/** The works' evidence for the rule: each one's DOI and the notices its source records carry (by DOI or PMID),
 * merged from every holder of the work. */
export function evidenceOf(works: readonly WorkRef[], notices: ReadonlyMap<string, IntegrityNotice[]>): WorkEvidence[] {
  return works.map((w) => {
    const own: IntegrityNotice[] = [];
    for (const n of (w.doi && notices.get(`doi:${w.doi}`)) || []) addNotice(own, { ...n });
    for (const n of (w.pmid && notices.get(`pmid:${w.pmid}`)) || []) addNotice(own, { ...n });
    return { doi: w.doi, own };
  });
}

/**
 * THE retraction rule: a work is retracted when its own source record flags it so (OpenAlex `is_retracted`, MEDLINE
 * "Retracted Publication" or a RetractionIn link, a source line's `"retracted": true`: a `retraction` notice of its
 * own), or a list in force flags its DOI retracted. Ingestion excludes by it, search excludes by it, integrity says
 * `retracted` by it.
 */
export function isRetractedWork(work: WorkEvidence, lists: ListsInForce): boolean {
  return work.own.some((n) => n.type === "retraction") || (work.doi !== null && lists.flagsRetracted(work.doi));
}

/** A work's integrity: its own source's notices and the lists', the status by the retraction rule (integrityOf). */
export function workIntegrity(work: WorkEvidence, lists: ListsInForce): Integrity {
  const notices: IntegrityNotice[] = [];
  for (const n of work.own) addNotice(notices, { ...n });
  if (work.doi) for (const n of lists.noticesOf(work.doi)) addNotice(notices, { ...n });
  // a withdrawal's own record is the withdrawn text (a Cochrane review's withdrawn version, whose DOI Crossref's
  // withdrawal names): withdrawn too, not a current version. A correction or retraction notice's record stays as it is
  if (work.doi) for (const n of lists.noticesAt(work.doi)) addNotice(notices, { ...n });
  const retracted = isRetractedWork(work, lists);
  const listsChecked = work.doi !== null;
  if (notices.length === 0 && !retracted) return listsChecked ? NO_NOTICE_CHECKED : UNCHECKED_INTEGRITY;
  return { ...integrityOf(notices, retracted), listsChecked };
}

/**
 * The status of a work with these notices. `retracted` exactly when the retraction rule says so (isRetractedWork: what
 * keeps it out of search), so a row that search returns never reads "retracted" unless its collection keeps retracted
 * works. Otherwise a withdrawal or removal notice gives `withdrawn` (the publisher took the work back: a Cochrane
 * review withdrawn as out of date, an article in press withdrawn), then an expression of concern, then any correcting
 * notice (a correction, an erratum, a partial retraction, or a retraction notice the rule does not count as retracting
 * the work) gives `corrected`. A reinstatement changes nothing by itself.
 */
function integrityOf(notices: readonly IntegrityNotice[], flaggedRetracted: boolean): Omit<Integrity, "listsChecked"> {
  const sorted = [...notices].sort(
    (a, b) =>
      (a.date ?? "").localeCompare(b.date ?? "") || a.type.localeCompare(b.type) || a.source.localeCompare(b.source),
  );
  if (flaggedRetracted) return { status: "retracted", notices: sorted };
  if (sorted.some((n) => WITHDRAWING.has(n.type))) return { status: "withdrawn", notices: sorted };
  if (sorted.some((n) => n.type === "expression_of_concern"))
    return { status: "expression_of_concern", notices: sorted };
  if (sorted.some((n) => CORRECTING.has(n.type))) return { status: "corrected", notices: sorted };
  return { status: "none", notices: sorted };
}

/** Whether two notices are one: the same kind, recorded by the same source, naming the same notice DOI and PMID. */
export function sameNotice(a: IntegrityNotice, b: IntegrityNotice): boolean {
  return (
    a.type === b.type && a.source === b.source && (a.doi ?? "") === (b.doi ?? "") && (a.pmid ?? "") === (b.pmid ?? "")
  );
}

/**
 * Adds a notice unless its source recorded one of the same kind and notice identifiers already (a source naming one
 * notice twice); the same notice recorded by two sources is listed once per source, each naming its own.
 */
export function addNotice(notices: IntegrityNotice[], notice: IntegrityNotice): void {
  const same = notices.find((n) => sameNotice(n, notice));
  if (!same) notices.push(notice);
  else if (!same.date && notice.date) same.date = notice.date;
}
