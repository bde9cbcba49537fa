// The English words the catalogue detector's typo correction would take for a vocabulary word: what
// src/usecases/catalogue/realWords.json must hold (catalogue-real-words.ts writes it from this; a unit test compares).
import { createRequire } from "node:module";
import { nearestVocabularyWord } from "../src/usecases/catalogue/intent.js";

export function realWordsNearVocabulary(): string[] {
  const english = createRequire(import.meta.url)("an-array-of-english-words") as string[];
  return english.filter((word) => /^[a-z]+$/.test(word) && nearestVocabularyWord(word) !== undefined).sort();
}
