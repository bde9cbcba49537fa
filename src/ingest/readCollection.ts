// Picks the reader a collection's source names and streams its documents (and deletions) from the data root.
import type { PlainCollection } from '../domain/catalog.js';
import { sourceFilePaths } from '../domain/catalog.js';
import { readBeirCorpus } from './beirReader.js';
import { medlineCitationToEditorialDocument } from './medlineEditorial.js';
import { readMedlineItems } from './medlineReader.js';
import { readOpenAlexWorks } from './openAlexReader.js';
import { readJatsDocuments } from './jatsReader.js';
import { readJsonlDocuments } from './jsonlReader.js';
import type { SourceItem } from './sourceDocument.js';

async function* readSourceFile(reader: PlainCollection['source']['reader'], path: string, dataRoot: string): AsyncGenerator<SourceItem> {
  switch (reader) {
    case 'beir':
      yield* readBeirCorpus(path);
      return;
    case 'openalex':
      yield* readOpenAlexWorks(path);
      return;
    case 'medline':
      yield* readMedlineItems(path);
      return;
    case 'jsonl':
      yield* readJsonlDocuments(path);
      return;
    case 'jats':
      yield* readJatsDocuments(path, dataRoot);
      return;
    case 'medline-editorial':
      yield* readMedlineItems(path, medlineCitationToEditorialDocument);
      return;
    default: {
      const unknownReader: never = reader;
      throw new Error(`no reader for source type ${String(unknownReader)}`);
    }
  }
}

/** Every document and deletion of a collection's source files, in file order. */
export async function* readCollectionDocuments(collection: PlainCollection, dataRoot: string): AsyncGenerator<SourceItem> {
  for (const path of sourceFilePaths(collection, dataRoot)) yield* readSourceFile(collection.source.reader, path, dataRoot);
}
