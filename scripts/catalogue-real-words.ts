// Writes src/usecases/catalogue/realWords.json: the English words (an-array-of-english-words, a list of about 275,000)
// that the catalogue detector's typo correction would take for one of its vocabulary words ("pressures" for
// "presses"), so that it never does (src/usecases/catalogue/intent.ts). Run again when the vocabulary changes; a unit
// test (test/catalogue/realWords.unit.spec.ts) fails while the file is stale.
// Usage: npm run catalogue:real-words
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { realWordsNearVocabulary } from "./catalogueRealWords.js";

const target = fileURLToPath(new URL("../src/usecases/catalogue/realWords.json", import.meta.url));
const words = realWordsNearVocabulary();
writeFileSync(target, `${JSON.stringify(words, null, 2)}\n`);
console.log(`${words.length} real words near the catalogue vocabulary written to ${target}`);
