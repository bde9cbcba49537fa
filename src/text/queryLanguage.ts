// Which language a question reads as, when it is not English: the service's analyzers, embedding model and judge read
// English, so a question in German finds nothing and would be answered "no relevant results", which says the corpus
// holds nothing on it. Told by function words ("ist", "für", "la", "para"), never by a subject's words or accents
// (English questions name "von Willebrand", "de novo", "Guillain-Barré"). Pure; measured by bench/queryLanguage.ts.

/**
 * Each language's function words that English questions do not use. Left out because English questions hold them as
 * words ("a", "as", "no", "on", "in", "is", "die", "was", "so", "per", "son", "hay", "come", "plus", "door", "al" of
 * "et al", "et") or abbreviations ("la" LA, "le" Le Fort, "des" DES, "il" IL-6, "ai" AI, "os" OS, "na" Na, "nos" NOS,
 * "sem" SEM, "er" ER), or in names ("van", "von", "den", "dem"). "do" is Portuguese here, not English: "Do statins...?"
 * opens an English question with plenty else.
 */
const FUNCTION_WORDS: Readonly<Record<string, readonly string[]>> = {
  German: [
    ...["der", "das", "und", "ist", "nicht", "mit", "für", "ein", "eine", "einen", "einem", "einer", "eines", "bei"],
    ...["zu", "zur", "zum", "auf", "über", "sind", "wird", "werden", "oder", "auch", "sich", "im", "wie", "welche"],
    ...["welcher", "welches", "gibt", "kann", "können", "zwischen", "nach", "ohne", "unter", "durch", "als", "hat"],
    ...["haben", "vom", "beim", "ihre", "seine", "mehr", "gegen", "wirkt", "hilft"],
  ],
  Spanish: [
    ...["el", "los", "las", "es", "del", "y", "con", "para", "por", "que", "una", "uno", "un", "se", "su", "sus"],
    ...["lo", "como", "más", "entre", "sin", "sobre", "cuál", "cuáles", "qué", "cómo", "está", "están"],
    ...["pero", "también", "puede", "de", "en"],
  ],
  French: [
    ...["les", "du", "est", "une", "un", "pour", "dans", "avec", "sur", "par", "que", "qui", "quel", "quelle"],
    ...["quels", "quelles", "sont", "ce", "cette", "ces", "au", "aux", "chez", "sans", "entre", "ou", "pas"],
    ...["ne", "elle", "elles", "ils", "leur", "leurs", "nous", "vous", "être", "peut", "existe", "à", "de", "en"],
  ],
  Italian: [
    ...["lo", "gli", "di", "del", "della", "dello", "dei", "delle", "degli", "è", "un", "una", "con", "nel"],
    ...["nella", "nei", "nelle", "negli", "che", "sono", "tra", "fra", "quale", "quali", "sulla", "sul"],
    ...["sui", "alla", "alle", "allo", "dal", "dalla", "esiste", "può"],
  ],
  Portuguese: [
    ...["do", "da", "dos", "das", "em", "nas", "um", "uma", "para", "com", "por", "que", "é"],
    ...["são", "entre", "sobre", "qual", "quais", "como", "ao", "aos", "pela", "pelo", "existe", "de"],
  ],
  Dutch: [
    ...["de", "het", "een", "en", "niet", "met", "voor", "op", "zijn", "bij", "naar", "wat", "welke", "hoe"],
    ...["tussen", "zonder", "ook", "dan", "te", "om", "aan", "heeft", "verband"],
  ],
};

/**
 * English function words: a question is read as another language only when it holds more than 1.5 times as many of
 * that language's function words as of these.
 */
const ENGLISH = new Set([
  ...["the", "of", "and", "in", "is", "are", "for", "with", "to", "a", "an", "on", "does", "did", "what"],
  ...["which", "how", "by", "from", "or", "than", "between", "among", "after", "before", "versus", "vs", "be"],
  ...["can", "it", "its", "this", "that", "these", "there", "was", "were", "has", "have", "been", "not", "no"],
  ...["any", "who", "when", "why", "whether", "about", "into", "during", "without", "at", "as", "patients"],
]);

const LANGUAGES = Object.entries(FUNCTION_WORDS).map(([name, words]) => ({ name, words: new Set(words) }));

/** French elisions ("l'efficacité", "d'hémophilie", "qu'il"): English has none of these forms. */
const ELISION = /(?:^|[^\p{L}])(?:l|d|qu|n|j|c|s)['’]\p{L}/giu;

/** A language needs at least this many of its function words, and more than 1.5 times English's, to be named. */
const MIN_FOREIGN_WORDS = 2;
const OVER_ENGLISH = 1.5;

/** Letters that tell apart two languages with as many function words ("entre", "de" are Spanish and Portuguese). */
const LETTERS: Readonly<Record<string, RegExp>> = {
  Portuguese: /ção|ções|ões|[ãõ]/u,
  Spanish: /[ñ¿¡]|ción\b/u,
  German: /[äöüß]/u,
  French: /[èœ]|eau\b|\bl['’]/u,
  Italian: /zione\b|[ìò]/u,
  Dutch: /ij|oe|aa/u,
};

/**
 * The language `text` reads as when it is not English, by name ("German"), or null: English, or too few function words
 * to tell (a list of terms is searched as it is).
 */
export function foreignLanguageOf(text: string): string | null {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  const english = words.filter((w) => ENGLISH.has(w)).length;
  const lower = text.toLowerCase();
  let best: { name: string; count: number; letters: boolean } | null = null;
  for (const language of LANGUAGES) {
    let count = words.filter((w) => language.words.has(w)).length;
    if (language.name === "French") count += (text.match(ELISION) ?? []).length;
    if (language.name === "Spanish" && /[¿¡]/u.test(text)) count += 1;
    const letters = LETTERS[language.name]?.test(lower) ?? false;
    if (!best || count > best.count || (count === best.count && letters && !best.letters))
      best = { name: language.name, count, letters };
  }
  return best && best.count >= MIN_FOREIGN_WORDS && best.count > OVER_ENGLISH * english ? best.name : null;
}
