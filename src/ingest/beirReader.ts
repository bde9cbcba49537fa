// Reads a BEIR corpus.jsonl (e.g. SciFact) into source documents whose doc_id is the BEIR `_id`.
import { z } from "zod";
import type { SourceDocument } from "./sourceDocument.js";
import { readableIssues, readJsonLineItems } from "./sourceFiles.js";

const beirRecord = z.object({
  _id: z.union([z.string(), z.number()]).transform(String),
  title: z.string().nullish(),
  text: z.string().nullish(),
});

/** Maps one BEIR corpus record; the abstract becomes one "abstract" section, the title stays metadata. */
function beirRecordToDocument(raw: unknown): SourceDocument {
  const parsed = beirRecord.safeParse(raw);
  if (!parsed.success) throw new Error(readableIssues(parsed.error));
  const record = parsed.data;
  const title = record.title?.trim() || null;
  const text = record.text?.trim() ?? "";
  return {
    doc_id: record._id,
    title,
    sections: text ? [{ section: "abstract", text }] : [],
    metadata: { title },
  };
}

/** The corpus's documents; a bad line (not JSON, no `_id`, a title or text not a string) is listed by number. */
export const readBeirCorpus = (path: string): AsyncGenerator<SourceDocument> =>
  readJsonLineItems(path, beirRecordToDocument);
