// Derives the editorial-only fields from MEDLINE citations: the demo's editorial collection, since no editorial dataset
// exists.
//
// How each field is derived (also stated in config/collections.json), and why it is honest:
// - topic: the first MeSH heading marked major (descriptor or qualifier MajorTopicYN="Y"); else the first author
//   keyword; else absent. In-Process citations have no MeSH yet, hence the keyword fallback.
// - url: https://pubmed.ncbi.nlm.nih.gov/<pmid>/, the citation's public page.
// - last_updated_date: DateRevised, else DateCreated (when NLM last changed the citation).
// - medical_board_approved: true only when NLM indexing is complete (Status="MEDLINE"), i.e. NLM's subject
//   indexers reviewed the citation. No clinical board reviewed any of these records; the field is a proxy and
//   the collection description says so.
// - Trial fields, only on clinical-trial citations (a "Clinical Trial*" or "Randomized Controlled Trial"
//   publication type, or a trial registry in DataBankList: ClinicalTrials.gov, ISRCTN, EudraCT):
//   - nct_id: the ClinicalTrials.gov accession number (NCT########) when listed, else absent.
//   - phases: from "Clinical Trial, Phase I..IV" publication types as "phase1".."phase4"; absent when unstated.
//   - overall_status: "completed", since a published trial report describes a trial that has reported.
//   - has_results: true, since the citation is itself a publication of the trial's results.
//   Non-trial citations carry none of these four fields.
import type { MedlineCitation } from "./medlineReader.js";
import { medlineCitationToDocument } from "./medlineReader.js";
import type { EditorialMetadata, SourceDocument } from "./sourceDocument.js";

const TRIAL_REGISTRIES = new Set(["ClinicalTrials.gov", "ISRCTN", "EudraCT"]);

const PHASES: Record<string, string> = {
  "Clinical Trial, Phase I": "phase1",
  "Clinical Trial, Phase II": "phase2",
  "Clinical Trial, Phase III": "phase3",
  "Clinical Trial, Phase IV": "phase4",
};

function isClinicalTrialCitation(citation: MedlineCitation): boolean {
  return (
    citation.publicationTypes.some((type) => /Clinical Trial|Controlled Trial/.test(type)) ||
    citation.dataBanks.some((bank) => TRIAL_REGISTRIES.has(bank.name))
  );
}

function editorialFieldsOf(citation: MedlineCitation): EditorialMetadata {
  const topic = citation.meshHeadings.find((heading) => heading.major)?.descriptor ?? citation.keywords[0] ?? null;
  const fields: EditorialMetadata = {
    topic,
    url: `https://pubmed.ncbi.nlm.nih.gov/${citation.pmid}/`,
    last_updated_date: citation.revisedDate,
    medical_board_approved: citation.status === "MEDLINE",
  };
  if (!isClinicalTrialCitation(citation)) return fields;
  const nctId = citation.dataBanks
    .filter((bank) => bank.name === "ClinicalTrials.gov")
    .flatMap((bank) => bank.accessionNumbers)
    .find((accession) => /^NCT\d{8}$/.test(accession));
  const phases = citation.publicationTypes.flatMap((type) => (PHASES[type] ? [PHASES[type]] : []));
  return {
    ...fields,
    nct_id: nctId ?? null,
    phases: phases.length > 0 ? phases : null,
    overall_status: "completed",
    has_results: true,
  };
}

/** Editorial view of a citation: the scholarly document plus the derived editorial fields. */
export function medlineCitationToEditorialDocument(citation: MedlineCitation): SourceDocument {
  const document = medlineCitationToDocument(citation);
  return { ...document, metadata: { ...document.metadata, ...editorialFieldsOf(citation) } };
}
