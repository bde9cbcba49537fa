// Pulls identifiers out of the forms sources write them in (resolver URLs, "PMC… [Available on …]") into the filters'
// canonical forms.
import { canonicalDoi, canonicalIssn, canonicalPmcid, canonicalPmid } from "../domain/identifiers.js";

/** Lower-case bare DOI from "https://doi.org/10.…", "doi:10.…" or "10.…"; null when absent or malformed. */
export function doiFromSource(value: string | null | undefined): string | null {
  return value ? canonicalDoi(value) : null;
}

/** Canonical ("1234-567X"), de-duplicated ISSNs in first-seen order; malformed ones are left out. */
export function issnListFromSource(values: Iterable<string | null | undefined>): string[] {
  const issns: string[] = [];
  for (const value of values) {
    const issn = value ? canonicalIssn(value) : null;
    if (issn && !issns.includes(issn)) issns.push(issn);
  }
  return issns;
}

/** PMID from "12345" or "https://pubmed.ncbi.nlm.nih.gov/12345". */
export function pmidFromSource(value: string | null | undefined): string | null {
  const lastSegment = value?.trim().replace(/\/+$/, "").split("/").pop();
  return lastSegment ? canonicalPmid(lastSegment) : null;
}

/** PMCID from "PMC123", "https://www.ncbi.nlm.nih.gov/pmc/articles/123" or MEDLINE's "PMC123 [Available on 12/22/16]". */
export function pmcidFromSource(value: string | null | undefined): string | null {
  const lastSegment = value
    ?.trim()
    .replace(/\s*\[[^\]]*\]$/, "")
    .replace(/\/+$/, "")
    .split("/")
    .pop();
  return lastSegment ? canonicalPmcid(lastSegment) : null;
}
