// Picks the reader a collection's source names and streams its documents (and deletions) from the data root.
import { realpath } from "node:fs/promises";
import type { PlainCollection } from "../domain/collectionDefinitions.js";
import { checkOperatorFile, OperatorFileError } from "./operatorFiles.js";
import type { ZodError } from "zod";
import { badLinesError, LISTED_BAD_LINES, readableIssues, SourceContentError } from "./sourceFiles.js";
import { readBeirCorpus } from "./beirReader.js";
import { medlineCitationToEditorialDocument } from "./medlineEditorial.js";
import { readMedlineItems } from "./medlineReader.js";
import { readOpenAlexWorks } from "./openAlexReader.js";
import { readJatsDocuments } from "./jatsReader.js";
import { readJsonlDocuments } from "./jsonlReader.js";
import { holdsNul, NUL_REFUSAL, type SourceItem } from "./sourceDocument.js";

async function* readSourceFile(
  reader: PlainCollection["source"]["reader"],
  path: string,
  dataRoot: string,
): AsyncGenerator<SourceItem> {
  switch (reader) {
    case "beir":
      yield* readBeirCorpus(path);
      return;
    case "openalex":
      yield* readOpenAlexWorks(path);
      return;
    case "medline":
      yield* readMedlineItems(path);
      return;
    case "jsonl":
      yield* readJsonlDocuments(path);
      return;
    case "jats":
      yield* readJatsDocuments(path, dataRoot);
      return;
    case "medline-editorial":
      yield* readMedlineItems(path, medlineCitationToEditorialDocument);
      return;
    default: {
      const unknownReader: never = reader;
      throw new Error(`no reader for source type ${String(unknownReader)}`);
    }
  }
}

/**
 * The most text one document may carry (title and sections): a long full-text article has a few hundred thousand
 * characters.
 */
const MAX_DOCUMENT_CHARS = 1_000_000;

const textLength = (item: SourceItem): number =>
  "deleted" in item ? 0 : (item.title?.length ?? 0) + item.sections.reduce((n, s) => n + s.text.length, 0);

/** Whether an error is a fault of the machine (worth a retry) rather than of the file's content or name. */
const isFault = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException).code;
  return (
    !(err instanceof OperatorFileError) &&
    typeof code === "string" &&
    /^E[A-Z]+$/.test(code) &&
    !["ENOENT", "ENOTDIR", "EACCES", "EPERM", "ELOOP", "EISDIR"].includes(code)
  );
};

/** A reader's error in words: a schema's issues as `field: problem` (never a dump of the validation object). */
function readableMessage(err: unknown): string {
  const issues = (err as { issues?: unknown }).issues;
  if (err instanceof Error && err.name === "ZodError" && Array.isArray(issues))
    return `a record does not fit the reader's format: ${readableIssues(err as ZodError)}`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * One file's items through the reader, named as the operator gave it: a document over MAX_DOCUMENT_CHARS is a counted
 * rejection (the read fails at the end of the file listing them), and whatever the reader refuses becomes a
 * SourceContentError naming the file as given, never its real path or its text.
 */
async function* readNamedFile(
  reader: PlainCollection["source"]["reader"],
  file: string,
  path: string,
  dataRoot: string,
): AsyncGenerator<SourceItem> {
  const named = (message: string) => message.split(path).join(file);
  const bad: string[] = [];
  let badCount = 0;
  let position = 0;
  try {
    for await (const item of readSourceFile(reader, path, dataRoot)) {
      position += 1;
      const length = textLength(item);
      if (length > MAX_DOCUMENT_CHARS) {
        badCount += 1;
        if (bad.length < LISTED_BAD_LINES)
          bad.push(
            `record ${position}: ${length} characters of text, over the ${MAX_DOCUMENT_CHARS}-character document limit`,
          );
        continue;
      }
      if (holdsNul(item)) {
        badCount += 1;
        if (bad.length < LISTED_BAD_LINES) bad.push(`record ${position}: ${NUL_REFUSAL}`);
        continue;
      }
      yield item;
    }
  } catch (err) {
    if (isFault(err)) throw err;
    const message = named(readableMessage(err));
    throw new SourceContentError(message.startsWith(file) ? message : `${file}: ${message}`);
  }
  if (badCount > 0)
    throw badLinesError(file, badCount, bad, "nothing was indexed from this file's collection", "document");
}

/**
 * Every document and deletion of a collection's source files, in file order. Each file passes the operator-file guard
 * first (relative, inside the data root once links are resolved, a regular file within the size limit): a file that
 * does not is an OperatorFileError naming it.
 */
export async function* readCollectionDocuments(
  collection: PlainCollection,
  dataRoot: string,
): AsyncGenerator<SourceItem> {
  let root: string | undefined;
  for (const file of collection.source.files) {
    const path = await checkOperatorFile(dataRoot, file);
    // readers see real paths, so what they name beside a file (a JATS figure) is measured against the real root
    root ??= await realpath(dataRoot);
    yield* readNamedFile(collection.source.reader, file, path, root);
  }
}
