// The `english` analyzer of OpenSearch (Lucene's EnglishAnalyzer) re-implemented so the embedded engine indexes the
// same terms. Chain: StandardTokenizer (UAX#29 word boundaries) -> EnglishPossessiveFilter -> LowerCaseFilter ->
// StopFilter -> PorterStemFilter.
import { stemPorter } from "./porterStemmer.js";

/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, the `_english_` stop list of OpenSearch (33 words). */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "but",
  "by",
  "for",
  "if",
  "in",
  "into",
  "is",
  "it",
  "no",
  "not",
  "of",
  "on",
  "or",
  "such",
  "that",
  "the",
  "their",
  "then",
  "there",
  "these",
  "they",
  "this",
  "to",
  "was",
  "will",
  "with",
]);

/** StandardTokenizer's default maximum token length; longer words are split at this many UTF-16 units. */
const MAX_TOKEN_LENGTH = 255;

/** Word_Break classes of UAX#29 that the tokenizer distinguishes. */
const enum WordClass {
  Other,
  ALetter,
  Numeric,
  Katakana,
  /** Han and Hiragana: Lucene emits each character as its own token */
  Ideographic,
  MidLetter,
  MidNum,
  MidNumLet,
  SingleQuote,
  ExtendNumLet,
  /** Extend, Format and ZWJ: attach to the preceding character (rule WB4) */
  Extend,
  /** pictographs (emoji, ©, ®, ™, arrows): a token of its own, as Lucene's emoji rule emits them */
  Emoji,
  /** flag halves: two in a row make one token */
  RegionalIndicator,
}

const MID_LETTER = new Set([0x3a, 0xb7, 0x387, 0x55f, 0x5f4, 0x2027, 0xfe13, 0xfe55, 0xff1a]);
const MID_NUM = new Set([
  0x2c, 0x3b, 0x37e, 0x589, 0x60c, 0x60d, 0x66c, 0x7f8, 0x2044, 0xfe10, 0xfe14, 0xfe50, 0xfe54, 0xff0c, 0xff1b,
]);
const MID_NUM_LET = new Set([0x2e, 0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e]);
const EXTEND_NUM_LET = new Set([0x5f, 0x202f, 0x203f, 0x2040, 0x2054, 0xfe33, 0xfe34, 0xfe4d, 0xfe4e, 0xfe4f, 0xff3f]);

const RE_EXTEND = /[\p{M}\p{Emoji_Modifier}\u200c\u200d]/u;
const RE_FORMAT = /\p{Cf}/u;
const RE_NUMERIC = /\p{Nd}/u;
const RE_KATAKANA = /[\p{Script=Katakana}\u3031-\u3035\u309b\u309c\u30a0\u30fc\uff70]/u;
const RE_IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}]/u;
const RE_ALETTER = /[\p{Alphabetic}\u02c2-\u02c5\u02d2-\u02d7\u02de\u02df\u02e5-\u02eb\u02ed\u02ef-\u02ff\u05f3]/u;
const RE_EMOJI = /\p{Extended_Pictographic}/u;

const asciiClasses: WordClass[] = [];
for (let code = 0; code < 128; code++) asciiClasses.push(classifySlow(code));

function classifySlow(code: number): WordClass {
  if (MID_LETTER.has(code)) return WordClass.MidLetter;
  if (MID_NUM.has(code)) return WordClass.MidNum;
  if (MID_NUM_LET.has(code)) return WordClass.MidNumLet;
  if (code === 0x27) return WordClass.SingleQuote;
  if (EXTEND_NUM_LET.has(code)) return WordClass.ExtendNumLet;
  const char = String.fromCodePoint(code);
  if (RE_EXTEND.test(char)) return WordClass.Extend;
  // U+200B ZERO WIDTH SPACE is Format in Unicode but breaks words in UAX#29
  if (code !== 0x200b && RE_FORMAT.test(char)) return WordClass.Extend;
  if (RE_NUMERIC.test(char)) return WordClass.Numeric;
  if (RE_KATAKANA.test(char)) return WordClass.Katakana;
  if (RE_IDEOGRAPHIC.test(char)) return WordClass.Ideographic;
  if (RE_ALETTER.test(char)) return WordClass.ALetter;
  if (code >= 0x1f1e6 && code <= 0x1f1ff) return WordClass.RegionalIndicator;
  if (RE_EMOJI.test(char)) return WordClass.Emoji;
  return WordClass.Other;
}

const nonAsciiClassCache = new Map<number, WordClass>();

function classify(code: number): WordClass {
  if (code < 128) return asciiClasses[code];
  let cls = nonAsciiClassCache.get(code);
  if (cls === undefined) {
    cls = classifySlow(code);
    nonAsciiClassCache.set(code, cls);
  }
  return cls;
}

function isLetterLike(cls: WordClass): boolean {
  return cls === WordClass.ALetter;
}

/** Classes that make a segment a token when the segment contains one of them. */
function isWordContent(cls: WordClass): boolean {
  return (
    cls === WordClass.ALetter ||
    cls === WordClass.Numeric ||
    cls === WordClass.Katakana ||
    cls === WordClass.Ideographic ||
    cls === WordClass.Emoji ||
    cls === WordClass.RegionalIndicator
  );
}

/** Scratch buffers of the tokenizer, grown on demand (one tokenization runs at a time: the code is synchronous). */
let unitStarts = new Int32Array(4096);
let unitClasses = new Uint8Array(4096);

/**
 * Splits text into words the way Lucene's StandardTokenizer does (UAX#29 word break rules WB4-WB13b):
 * letters and digits join ("x1y2", "3.5", "1,000", "u.s.a", "can't", "foo_bar"), hyphens and spaces break.
 */
export function tokenizeStandard(text: string): string[] {
  const length = text.length;
  if (unitStarts.length < length + 1) {
    unitStarts = new Int32Array(length + 1024);
    unitClasses = new Uint8Array(length + 1024);
  }
  const starts = unitStarts;
  const classes = unitClasses;
  // Units: one base code point plus its attached Extend/Format characters (WB4); unit u spans starts[u]..starts[u+1].
  let unitCount = 0;
  let index = 0;
  while (index < length) {
    const unit = text.charCodeAt(index);
    let cls: WordClass;
    let width = 1;
    if (unit < 128) {
      cls = asciiClasses[unit];
    } else {
      const code = text.codePointAt(index) as number;
      if (code > 0xffff) width = 2;
      cls = classify(code);
      if (cls === WordClass.Extend && unitCount > 0 && !isBreakingWhitespace(text.charCodeAt(index - 1))) {
        index += width;
        continue;
      }
      if (cls === WordClass.Extend) cls = WordClass.Other;
      const previous = unitCount - 1;
      // WB3c: an emoji ZWJ sequence is one word; WB15/16: regional indicators pair into one flag
      const joinsEmoji =
        cls === WordClass.Emoji &&
        previous >= 0 &&
        classes[previous] === WordClass.Emoji &&
        text.charCodeAt(index - 1) === 0x200d;
      // (a lone indicator unit spans 2 code units; a paired one 4)
      const completesFlag =
        cls === WordClass.RegionalIndicator &&
        previous >= 0 &&
        classes[previous] === WordClass.RegionalIndicator &&
        index - starts[previous] === 2;
      if (joinsEmoji || completesFlag) {
        index += width;
        continue;
      }
    }
    starts[unitCount] = index;
    classes[unitCount] = cls;
    unitCount++;
    index += width;
  }
  starts[unitCount] = length;

  const tokens: string[] = [];
  let segmentStart = 0;
  let segmentHasWord = false;
  for (let unit = 0; unit < unitCount; unit++) {
    if (!segmentHasWord && isWordContent(classes[unit])) segmentHasWord = true;
    if (unit === unitCount - 1 || isWordBreak(classes, unitCount, unit)) {
      if (segmentHasWord) pushToken(tokens, text.slice(starts[segmentStart], starts[unit + 1]));
      segmentStart = unit + 1;
      segmentHasWord = false;
    }
  }
  return tokens;
}

function isBreakingWhitespace(charCode: number): boolean {
  return charCode === 0x0a || charCode === 0x0d || charCode === 0x0b || charCode === 0x0c || charCode === 0x85;
}

function pushToken(tokens: string[], word: string): void {
  if (word.length <= MAX_TOKEN_LENGTH) {
    tokens.push(word);
    return;
  }
  for (let offset = 0; offset < word.length; offset += MAX_TOKEN_LENGTH) {
    tokens.push(word.slice(offset, offset + MAX_TOKEN_LENGTH));
  }
}

function isMidLetterQ(cls: WordClass): boolean {
  return cls === WordClass.MidLetter || cls === WordClass.MidNumLet || cls === WordClass.SingleQuote;
}

function isMidNumQ(cls: WordClass): boolean {
  return cls === WordClass.MidNum || cls === WordClass.MidNumLet || cls === WordClass.SingleQuote;
}

/** Whether UAX#29 puts a boundary between unit `i` and unit `i + 1`. */
function isWordBreak(classes: Uint8Array, count: number, i: number): boolean {
  const left: WordClass = classes[i];
  const right: WordClass = classes[i + 1];
  // fast path: two letters, or a break between anything and plain Other
  if (left === WordClass.ALetter && right === WordClass.ALetter) return false;
  if (left === WordClass.Other || right === WordClass.Other) return true;
  const beforeLeft: WordClass = i > 0 ? classes[i - 1] : WordClass.Other;
  const afterRight: WordClass = i + 2 < count ? classes[i + 2] : WordClass.Other;

  // WB5
  if (isLetterLike(left) && isLetterLike(right)) return false;
  // WB6, WB7
  if (isLetterLike(left) && isMidLetterQ(right) && isLetterLike(afterRight)) return false;
  if (isMidLetterQ(left) && isLetterLike(right) && isLetterLike(beforeLeft)) return false;
  // WB8, WB9, WB10
  if (left === WordClass.Numeric && right === WordClass.Numeric) return false;
  if (isLetterLike(left) && right === WordClass.Numeric) return false;
  if (left === WordClass.Numeric && isLetterLike(right)) return false;
  // WB11, WB12
  if (isMidNumQ(left) && right === WordClass.Numeric && beforeLeft === WordClass.Numeric) return false;
  if (left === WordClass.Numeric && isMidNumQ(right) && afterRight === WordClass.Numeric) return false;
  // WB13
  if (left === WordClass.Katakana && right === WordClass.Katakana) return false;
  // WB13a, WB13b
  if (
    right === WordClass.ExtendNumLet &&
    (isLetterLike(left) || left === WordClass.Numeric || left === WordClass.Katakana || left === WordClass.ExtendNumLet)
  ) {
    return false;
  }
  if (
    left === WordClass.ExtendNumLet &&
    (isLetterLike(right) || right === WordClass.Numeric || right === WordClass.Katakana)
  ) {
    return false;
  }
  return true;
}

/** EnglishPossessiveFilter: strips a trailing 's (apostrophe, U+2019 or U+FF07). */
function stripPossessive(word: string): string {
  const length = word.length;
  if (length < 2) return word;
  const last = word.charCodeAt(length - 1);
  const apostrophe = word.charCodeAt(length - 2);
  if ((last === 0x73 || last === 0x53) && (apostrophe === 0x27 || apostrophe === 0x2019 || apostrophe === 0xff07)) {
    return word.slice(0, length - 2);
  }
  return word;
}

/**
 * Lucene's LowerCaseFilter, which OpenSearch's `lowercase` keyword normalizer also runs: each code point lowered on
 * its own (Java's Character.toLowerCase), with no context rules. The english analyzer and the embedded engine's
 * keyword filters both fold with it, so the two engines agree.
 */
export function lowerCaseLikeLucene(word: string): string {
  let ascii = true;
  for (let i = 0; i < word.length; i++) {
    if (word.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return word.toLowerCase();
  let lowered = "";
  for (const char of word) {
    const lower = char.toLowerCase();
    // multi-character lower-case mappings (e.g. U+0130) are single characters in Java
    lowered += [...lower].length === 1 ? lower : char === "\u0130" ? "i" : char;
  }
  return lowered;
}

/** Final term of each raw word seen ('' for a stop word); words repeat, so the filter chain runs once per word. */
const termByWord = new Map<string, string>();
const TERM_CACHE_LIMIT = 500_000;

function termOfWord(word: string): string {
  let term = termByWord.get(word);
  if (term === undefined) {
    const lowered = lowerCaseLikeLucene(stripPossessive(word));
    term = ENGLISH_STOP_WORDS.has(lowered) ? "" : stemPorter(lowered);
    if (termByWord.size >= TERM_CACHE_LIMIT) termByWord.clear();
    termByWord.set(word, term);
  }
  return term;
}

/** Terms that OpenSearch's `english` analyzer produces for `text`, in order (stop words removed, stemmed). */
export function analyzeEnglish(text: string): string[] {
  const terms: string[] = [];
  for (const word of tokenizeStandard(text)) {
    const term = termOfWord(word);
    if (term !== "") terms.push(term);
  }
  return terms;
}
