// BERT WordPiece tokenizer (BasicTokenizer + greedy longest-match WordPiece) over a model's vocab.txt.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ModelManifest } from "./modelManifest.js";
import type { Tokenizer } from "./port.js";

interface WordpieceEncoding {
  /** [CLS] pieces… [SEP], truncated to maxLen */
  inputIds: number[];
  attentionMask: number[];
}

interface WordpieceTokenizerOptions {
  /** vocabulary in id order (vocab.txt: one token a line) */
  vocab: readonly string[];
  /** the model's name, reported in the tokenizer name */
  modelName: string;
  /** uncased models lower-case and strip accents (BERT's do_lower_case) */
  lowercase?: boolean;
}

export interface WordpieceTokenizer extends Tokenizer {
  readonly vocabSize: number;
  /** word pieces of text, without special tokens and without truncation */
  tokenize(text: string): string[];
  /** ids of text's word pieces, without special tokens and without truncation */
  pieceIds(text: string): number[];
  /** model input for text: [CLS] pieces [SEP], truncated so the whole fits in maxLen */
  encode(text: string, maxLen: number): WordpieceEncoding;
  idOf(token: string): number | undefined;
}

// BERT's defaults (transformers BasicTokenizer / WordpieceTokenizer).
const UNK = "[UNK]";
const CLS = "[CLS]";
const SEP = "[SEP]";
const MAX_CHARS_PER_WORD = 100;
// Words repeat heavily across abstracts; memoizing their pieces makes bulk tokenizing several times faster.
const WORD_CACHE_LIMIT = 100_000;

const CONTROL = /\p{C}/u;
const SPACE_SEPARATOR = /\p{Zs}/u;
const PUNCTUATION = /\p{P}/u;
const NONSPACING_MARK = /\p{Mn}/gu;

function isWhitespace(cp: number): boolean {
  if (cp === 0x20 || cp === 0x09 || cp === 0x0a || cp === 0x0d) return true;
  return cp > 0x7f && SPACE_SEPARATOR.test(String.fromCodePoint(cp));
}

function isControl(cp: number): boolean {
  if (cp === 0x09 || cp === 0x0a || cp === 0x0d) return false;
  if (cp < 0x20 || cp === 0x7f) return true;
  return cp > 0x7f && CONTROL.test(String.fromCodePoint(cp));
}

function isPunctuation(cp: number): boolean {
  // BERT treats every non-alphanumeric ASCII symbol as punctuation ($, ^, `, ...), not only Unicode P*.
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126))
    return true;
  return cp > 0x7f && PUNCTUATION.test(String.fromCodePoint(cp));
}

/** CJK Unified Ideographs blocks, split into single-character words as BERT does (not Hangul or kana). */
function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

function stripAccents(word: string): string {
  // ASCII has no accents; skipping NFD for it keeps bulk tokenizing fast.
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(word)) return word;
  return word.normalize("NFD").replace(NONSPACING_MARK, "");
}

/** BasicTokenizer: clean, split on whitespace, isolate CJK characters and punctuation, lower-case and strip accents. */
function basicTokenize(text: string, lowercase: boolean): string[] {
  const words: string[] = [];
  let current = "";
  const flush = (): void => {
    if (current.length > 0) {
      words.push(current);
      current = "";
    }
  };
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp === 0 || cp === 0xfffd || isControl(cp)) continue;
    if (isWhitespace(cp)) {
      flush();
    } else if (isCjk(cp)) {
      flush();
      words.push(ch);
    } else {
      current += ch;
    }
  }
  flush();

  const tokens: string[] = [];
  for (const raw of words) {
    const word = lowercase ? stripAccents(raw.toLowerCase()) : raw;
    // Punctuation splits after case folding and accent stripping, as in BERT.
    let piece = "";
    for (const ch of word) {
      if (isPunctuation(ch.codePointAt(0) ?? 0)) {
        if (piece.length > 0) tokens.push(piece);
        tokens.push(ch);
        piece = "";
      } else {
        piece += ch;
      }
    }
    if (piece.length > 0) tokens.push(piece);
  }
  return tokens;
}

export function createWordpieceTokenizer(options: WordpieceTokenizerOptions): WordpieceTokenizer {
  const lowercase = options.lowercase ?? true;
  const ids = new Map<string, number>();
  options.vocab.forEach((token, id) => {
    if (!ids.has(token)) ids.set(token, id);
  });
  const requireId = (token: string): number => {
    const id = ids.get(token);
    if (id === undefined) throw new Error(`vocabulary of ${options.modelName} has no ${token} token`);
    return id;
  };
  const unkId = requireId(UNK);
  const clsId = requireId(CLS);
  const sepId = requireId(SEP);
  const wordCache = new Map<string, readonly number[]>();

  /** Greedy longest-match-first split of one word; a word with an unmatchable rest becomes [UNK]. */
  function wordPieceIds(word: string): readonly number[] {
    const cached = wordCache.get(word);
    if (cached) return cached;
    const chars = Array.from(word);
    let result: number[];
    if (chars.length > MAX_CHARS_PER_WORD) {
      result = [unkId];
    } else {
      result = [];
      let start = 0;
      while (start < chars.length) {
        let end = chars.length;
        let found: number | undefined;
        while (start < end) {
          const sub = (start > 0 ? "##" : "") + chars.slice(start, end).join("");
          found = ids.get(sub);
          if (found !== undefined) break;
          end -= 1;
        }
        if (found === undefined) {
          result = [unkId];
          break;
        }
        result.push(found);
        start = end;
      }
    }
    if (wordCache.size >= WORD_CACHE_LIMIT) wordCache.clear();
    wordCache.set(word, result);
    return result;
  }

  function pieceIds(text: string): number[] {
    const out: number[] = [];
    for (const word of basicTokenize(text, lowercase)) {
      for (const id of wordPieceIds(word)) out.push(id);
    }
    return out;
  }

  return {
    name: `bert-wordpiece-${lowercase ? "uncased" : "cased"}/${options.modelName}`,
    vocabSize: options.vocab.length,
    count: (text) => pieceIds(text).length,
    pieceIds,
    tokenize: (text) => pieceIds(text).map((id) => options.vocab[id] ?? UNK),
    encode(text, maxLen) {
      if (!Number.isInteger(maxLen) || maxLen < 2)
        throw new RangeError(`maxLen must be an integer >= 2, got ${maxLen}`);
      const pieces = pieceIds(text);
      const kept = pieces.length > maxLen - 2 ? pieces.slice(0, maxLen - 2) : pieces;
      const inputIds = [clsId, ...kept, sepId];
      return { inputIds, attentionMask: inputIds.map(() => 1) };
    },
    idOf: (token) => ids.get(token),
  };
}

/** Reads vocab.txt (one token a line, id = line number). */
export async function loadWordpieceTokenizer(
  vocabPath: string,
  options: Omit<WordpieceTokenizerOptions, "vocab">,
): Promise<WordpieceTokenizer> {
  const text = await readFile(vocabPath, "utf8");
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return createWordpieceTokenizer({ ...options, vocab: lines });
}

/** The provisioned model's tokenizer, without loading the model itself (for token counting in ingest and billing). */
export function loadModelTokenizer(manifest: ModelManifest): Promise<WordpieceTokenizer> {
  return loadWordpieceTokenizer(join(manifest.dir, manifest.vocab), {
    modelName: manifest.name,
    lowercase: manifest.lowercase,
  });
}
