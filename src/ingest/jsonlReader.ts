// Reads any corpus an operator brings as JSON lines: one document a line, `{"id", "title", "text" | "sections", ...}`
// with the spec's result metadata field names, or a deletion `{"id", "deleted": true}`; a bad line is reported with
// its file and line number.
import { sourceNotice } from "../domain/integrity.js";
import { z } from "zod";
import { canonicalArticleType } from "../filters/articleTypes.js";
import { parseFilterDate } from "../filters/dates.js";
import { canonicalNctId, canonicalTrialPhase } from "../domain/identifiers.js";
import { doiFromSource, issnListFromSource, pmcidFromSource, pmidFromSource } from "./sourceIdentifiers.js";
import { holdsNul, NUL_REFUSAL, type DocumentSection, type SourceItem } from "./sourceDocument.js";
import { readableIssues, readJsonLineItems } from "./sourceFiles.js";

/** The section name of a document given as one `text`. */
const JSONL_TEXT_SECTION = "body";

const text = z.string().trim().min(1).nullish();
const texts = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).map((s) => s.trim()).filter(Boolean))
  .nullish();
const identifier = (name: string, canonical: (v: string) => string | null) =>
  z
    .union([z.string(), z.number()])
    .nullish()
    .transform((v, ctx) => {
      if (v === null || v === undefined) return null;
      const c = canonical(String(v));
      if (!c) ctx.addIssue({ code: "custom", message: `not a ${name}` });
      return c;
    });
const date = (partial: boolean) =>
  z
    .string()
    .nullish()
    .refine(
      (v) => v == null || (parseFilterDate(v, partial) !== null && !v.includes("T")),
      partial ? "a date as YYYY, YYYY-MM or YYYY-MM-DD" : "a date as YYYY-MM-DD",
    );

const ID_FORMAT = "a non-empty string or an integer, required on every line";
const documentId = z.union([z.string().trim().min(1), z.number().int()], { error: ID_FORMAT }).transform(String);

/** A deletion line: only its id is read, so a line that still carries the document's other fields deletes it too. */
const jsonlDeletion = z.looseObject({ id: documentId, deleted: z.literal(true) });

const jsonlRecord = z
  .strictObject({
    id: documentId,
    /** `true` makes the line a deletion (read by jsonlDeletion); `false` or absent, a document */
    deleted: z.boolean().nullish(),
    title: text,
    text: z.string().nullish(),
    sections: z.array(z.strictObject({ title: z.string().trim().min(1), text: z.string() })).nullish(),
    retracted: z.boolean().nullish(),
    // scholarly result metadata (spec: "Result metadata fields named in the interface")
    authors: texts,
    doi: identifier("DOI", (v) => doiFromSource(v)),
    pmid: identifier("PMID", (v) => pmidFromSource(v)),
    pmcid: identifier("PMCID", (v) => pmcidFromSource(v)),
    url: text,
    journal: text,
    publisher: text,
    issn: texts.transform((v, ctx) => {
      if (!v) return null;
      const issns = issnListFromSource(v);
      if (issns.length !== new Set(v).size) ctx.addIssue({ code: "custom", message: "not an ISSN" });
      return issns;
    }),
    isbn: text,
    keywords: texts,
    publication_date: date(true),
    article_type: z
      .string()
      .nullish()
      .transform((v, ctx) => {
        if (v == null) return null;
        const type = canonicalArticleType(v);
        if (!type) ctx.addIssue({ code: "custom", message: "not an article type" });
        return type;
      }),
    open_access: z.boolean().nullish(),
    license: text,
    chapter_number: z.number().int().nullish(),
    chapter_title: text,
    chapter_authors: texts,
    // editorial result metadata (indexed on editorial collections)
    topic: text,
    medical_board_approved: z.boolean().nullish(),
    last_updated_date: date(false),
    nct_id: identifier("ClinicalTrials.gov id", canonicalNctId),
    overall_status: text,
    // "Phase 3", "PHASE3": held as phase3, the form filters match
    phases: texts.transform((v) => v && v.map((phase) => canonicalTrialPhase(phase) ?? phase)),
    has_results: z.boolean().nullish(),
  })
  .refine((r) => !(r.text != null && r.sections != null), { message: 'give "text" or "sections", not both' });

/**
 * Maps one line's record to a document or, with `"deleted": true`, a deletion; throws a readable message when it does
 * not fit.
 */
function jsonlRecordToItem(raw: unknown): SourceItem {
  if (typeof raw === "object" && raw !== null && (raw as { deleted?: unknown }).deleted === true) {
    const deletion = jsonlDeletion.safeParse(raw);
    if (!deletion.success) throw new Error(readableIssues(deletion.error));
    return { deleted: true, doc_id: deletion.data.id };
  }
  const parsed = jsonlRecord.safeParse(raw);
  if (!parsed.success) throw new Error(readableIssues(parsed.error));
  const { id, deleted: _notDeleted, title, text: body, sections, retracted, ...fields } = parsed.data;
  const documentSections: DocumentSection[] = sections
    ? sections.filter((s) => s.text.trim()).map((s) => ({ section: s.title.toLowerCase(), text: s.text.trim() }))
    : body?.trim()
      ? [{ section: JSONL_TEXT_SECTION, text: body.trim() }]
      : [];
  const metadata = Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0)),
  );
  return {
    doc_id: id,
    title: title ?? null,
    sections: documentSections,
    metadata: { ...metadata, title: title ?? null },
    ...(retracted ? { retracted: true, notices: [sourceNotice("retraction", "jsonl")] } : {}),
  };
}

/**
 * Documents and deletions of a JSON-lines file (".gz" gunzipped). Good lines are read on; when any line is bad (not
 * JSON, not an object of the known fields, an id an earlier line gave or deleted) the read fails at the end, listing
 * the bad lines by number.
 */
export function readJsonlDocuments(path: string): AsyncGenerator<SourceItem> {
  /** each id's line, so a repeat names the line that gave it first (never the id: the file's text is not echoed) */
  const seen = new Map<string, number>();
  return readJsonLineItems(
    path,
    (raw, line) => {
      const item = jsonlRecordToItem(raw);
      // listed with the file's other bad lines, in one round (the collection's reader refuses it too, after them)
      if (holdsNul(item)) throw new Error(NUL_REFUSAL);
      const earlier = seen.get(item.doc_id);
      if (earlier !== undefined) throw new Error(`its id was given on line ${earlier}`);
      seen.set(item.doc_id, line);
      return item;
    },
    "nothing was indexed from this file's collection",
  );
}
