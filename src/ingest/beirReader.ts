// Reads a BEIR corpus.jsonl (e.g. SciFact) into source documents whose doc_id is the BEIR `_id`.
import { z } from "zod";
import type { SourceDocument } from "./sourceDocument.js";
import { readJsonLines } from "./sourceFiles.js";

const beirRecord = z.object({
  _id: z.union([z.string(), z.number()]).transform(String),
  title: z.string().nullish(),
  text: z.string().nullish(),
});

/** Maps one BEIR corpus record; the abstract becomes one "abstract" section, the title stays metadata. */
function beirRecordToDocument(raw: unknown): SourceDocument {
  const record = beirRecord.parse(raw);
  const title = record.title?.trim() || null;
  const text = record.text?.trim() ?? "";
  return {
    doc_id: record._id,
    title,
    sections: text ? [{ section: "abstract", text }] : [],
    metadata: { title },
  };
}

export async function* readBeirCorpus(path: string): AsyncGenerator<SourceDocument> {
  for await (const raw of readJsonLines(path)) yield beirRecordToDocument(raw);
}
