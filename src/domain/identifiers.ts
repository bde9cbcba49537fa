// Canonical forms of the identifiers filters match on (ISSN, DOI, PMID, PMCID, NCT id); ingestion uses the same ones.

const ISSN_PATTERN = /^(\d{4})-?(\d{3}[\dX])$/;

/**
 * "12345678", "1234-5678", "1234-567x" → "1234-5678" / "1234-567X"; null when not an ISSN. The check digit is not
 * verified.
 */
export function canonicalIssn(raw: string): string | null {
  const match = ISSN_PATTERN.exec(raw.trim().toUpperCase());
  return match ? `${match[1]}-${match[2]}` : null;
}

const DOI_PREFIX = /^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i;
const DOI_PATTERN = /^10\.\d+(?:\.\d+)*\/\S+$/;

/** "https://doi.org/10.1000/ABC", "doi:10.1000/abc", "10.1000/AbC" → "10.1000/abc"; null when not a DOI. */
export function canonicalDoi(raw: string): string | null {
  const bare = raw.trim().replace(DOI_PREFIX, "").toLowerCase();
  return DOI_PATTERN.test(bare) ? bare : null;
}

/** PubMed ids are digits; a number is accepted as well as a string. */
export function canonicalPmid(raw: string | number): string | null {
  const text = typeof raw === "number" ? (Number.isSafeInteger(raw) ? String(raw) : "") : raw.trim();
  return /^[1-9]\d{0,9}$/.test(text) ? text : null;
}

/** "pmc123", "PMC123", "123" → "PMC123". */
export function canonicalPmcid(raw: string): string | null {
  const match = /^(?:PMC)?(\d{1,10})$/i.exec(raw.trim());
  return match ? `PMC${match[1]}` : null;
}

/** ClinicalTrials.gov ids: "nct01234567" → "NCT01234567". */
export function canonicalNctId(raw: string): string | null {
  const match = /^NCT(\d{8})$/i.exec(raw.trim());
  return match ? `NCT${match[1]}` : null;
}

// --- a work's id as people paste it ----------------------------------------------------------------------------------

export type WorkIdField = "doi" | "pmid" | "pmcid" | "openalex" | "doc_id";

export interface WorkId {
  field: WorkIdField;
  value: string;
  /** a bare number: a PubMed id first, else the `doc_id` a result row carries (a SciFact abstract's is a number) */
  orDocId?: true;
}

/** Longest identifier read; longer is none (no DOI comes near it). */
const MAX_WORK_ID_LENGTH = 300;

// a URL's scheme with one slash or two: a proxy that merges slashes leaves "https:/doi.org/…"
const SCHEME = String.raw`^(?:https?:\/\/?)?(?:www\.)?`;
const DOI_URL = new RegExp(`${SCHEME}(?:dx\\.)?doi\\.org\\/(.+)$`, "i");
const PUBMED_URL = new RegExp(
  `${SCHEME}(?:pubmed\\.ncbi\\.nlm\\.nih\\.gov|ncbi\\.nlm\\.nih\\.gov\\/pubmed)\\/(\\d+)\\/?$`,
  "i",
);
const PMC_URL = new RegExp(
  `${SCHEME}(?:pmc\\.ncbi\\.nlm\\.nih\\.gov|ncbi\\.nlm\\.nih\\.gov\\/pmc)\\/articles\\/(PMC\\d+)\\/?$`,
  "i",
);
const OPENALEX_URL = new RegExp(`${SCHEME}(?:api\\.)?openalex\\.org\\/(?:works\\/)?([Ww]\\d{1,12})\\/?$`, "i");

/** A URL's path as text: its percent-escapes decoded where they are well formed. */
function unescapeUrlPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * What an id names, in every form people paste: a DOI (bare, `doi:…`, a doi.org URL), `pmid:NNN` or a PubMed URL,
 * `pmcid:PMCNNN`, a bare `PMCNNN` or a PMC URL, an OpenAlex id (`W…`, `openalex:W…` or an openalex.org URL), a bare
 * number (a PubMed id, else a result's doc_id), else the `doc_id` a result row carries (an operator's may be a URL). A
 * URL's query or fragment is left out. Null when it is none of them (empty, too long, a prefix on something it cannot
 * be, or a doi.org, PubMed, PMC or OpenAlex URL naming nothing).
 */
export function parseWorkId(raw: string): WorkId | null {
  const id = raw.trim();
  if (!id || id.length > MAX_WORK_ID_LENGTH) return null;
  const prefixed = /^(pmid|pmcid|doi|openalex):\s*(.+)$/i.exec(id);
  if (prefixed) {
    const kind = prefixed[1]!.toLowerCase();
    const rest = prefixed[2]!.trim();
    const value =
      kind === "pmid"
        ? canonicalPmid(rest)
        : kind === "pmcid"
          ? canonicalPmcid(rest)
          : kind === "openalex"
            ? openAlexShort(rest)
            : canonicalDoi(rest);
    return value ? { field: kind === "openalex" ? "openalex" : (kind as WorkIdField), value } : null;
  }
  const url = /^(?:https?:|(?:www\.|dx\.)?doi\.org\/|(?:pubmed|pmc)\.ncbi|openalex\.org\/)/i.test(id)
    ? id.replace(/[?#].*$/, "")
    : null;
  if (url !== null) {
    const doi = DOI_URL.exec(url);
    if (doi) {
      const v = canonicalDoi(unescapeUrlPath(doi[1]!));
      return v ? { field: "doi", value: v } : null;
    }
    const pmid = PUBMED_URL.exec(url);
    if (pmid) {
      const v = canonicalPmid(pmid[1]!);
      return v ? { field: "pmid", value: v } : null;
    }
    const pmc = PMC_URL.exec(url);
    if (pmc) return { field: "pmcid", value: canonicalPmcid(pmc[1]!)! };
    const openalex = OPENALEX_URL.exec(url);
    if (openalex) return { field: "openalex", value: `W${openalex[1]!.slice(1)}` };
    // a site's URL whose path names no work of it; any other URL may be an operator's doc_id
    if (
      /^(?:https?:\/\/?)?(?:www\.|dx\.|api\.|pubmed\.|pmc\.)?(?:doi\.org|ncbi\.nlm\.nih\.gov|openalex\.org)\//i.test(
        url,
      )
    )
      return null;
  }
  const doi = canonicalDoi(id);
  if (doi) return { field: "doi", value: doi };
  const openalex = openAlexShort(id);
  if (openalex) return { field: "openalex", value: openalex };
  if (/^PMC\d{1,10}$/i.test(id)) return { field: "pmcid", value: canonicalPmcid(id)! };
  const pmid = canonicalPmid(id);
  if (pmid) return { field: "pmid", value: pmid, orDocId: true };
  return { field: "doc_id", value: id };
}

/** "W123", "w123" or an openalex.org URL of it → "W123"; null otherwise. */
function openAlexShort(raw: string): string | null {
  const m = /^[Ww](\d{1,12})$/.exec(raw) ?? OPENALEX_URL.exec(raw.replace(/[?#].*$/, ""));
  return m ? `W${m[1]!.replace(/^[Ww]/, "")}` : null;
}

/**
 * The link that resolves a work from what is known of it: its DOI at doi.org, else its PubMed page, else its OpenAlex
 * page; null with none of them.
 */
export function resolvingUrl(ids: {
  doi?: string | null;
  pmid?: string | null;
  openalex?: string | null;
}): string | null {
  if (ids.doi) return `https://doi.org/${ids.doi}`;
  if (ids.pmid) return `https://pubmed.ncbi.nlm.nih.gov/${ids.pmid}/`;
  if (ids.openalex) return `https://openalex.org/${ids.openalex}`;
  return null;
}

/**
 * What a cited-by list keeps of a citing work on each of its edges (src/eventstore/schema.ts): its publication date
 * ('' for none) and key (OpenAlex id, else DOI, else PMID, else doc_id), the list's order, and its ids.
 */
export function citingOfWork(
  docId: string,
  ids: { doi: string | null; pmid: string | null; openalex: string | null },
  date: string | null,
) {
  return {
    date: date ?? "",
    key: ids.openalex ?? ids.doi ?? ids.pmid ?? docId,
    doi: ids.doi,
    pmid: ids.pmid,
    openalex: ids.openalex,
  };
}

// --- a trial's phase -------------------------------------------------------------------------------------------------

const ROMAN_PHASES: Record<string, string> = { i: "1", ii: "2", iii: "3", iv: "4" };

/**
 * A trial phase as registries and people write it, in the form the index holds: "Phase 3", "phase III", "PHASE3",
 * "Phase-3", "3" → "phase3"; "Early Phase 1", "EARLY_PHASE1" → "early_phase1". Null for anything else ("Phase 1/2",
 * "N/A"), which a filter then matches as written.
 */
export function canonicalTrialPhase(raw: string): string | null {
  const match = /^(early[\s_-]*)?(?:phase[\s_-]*)?([1-4]|i{1,3}|iv)$/i.exec(raw.trim());
  if (!match) return null;
  const number = ROMAN_PHASES[match[2].toLowerCase()] ?? match[2];
  if (match[1] && number !== "1") return null;
  return `${match[1] ? "early_" : ""}phase${number}`;
}
