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
