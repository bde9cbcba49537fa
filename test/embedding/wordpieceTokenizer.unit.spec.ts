// WordPiece tokenizer over the real vocabulary's pieces (test/fixtures/embedding/wordpiece-vocab.json: the tokens of
// the provisioned model's vocab.txt these strings use, at their real ids, so nothing need be provisioned) and ids from
// the HF tokenizers reference (the same ids on all of SciFact with the whole vocab.txt:
// test/embedding/embedder.int.spec.ts).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createWordpieceTokenizer,
  loadWordpieceTokenizer,
  type WordpieceTokenizer,
} from "../../src/embedding/wordpieceTokenizer.js";
import reference from "./wordpieceReference.fixture.json" with { type: "json" };
import vocabFixture from "../fixtures/embedding/wordpiece-vocab.json" with { type: "json" };

const modelName = vocabFixture.model;
let tokenizer: WordpieceTokenizer;
let dir: string;

/** The model's vocab.txt with only the fixture's pieces: every other line a token no word can match. */
function fixtureVocabText(): string {
  const lines = Array.from({ length: vocabFixture.vocabSize }, (_, id) => `[not in the fixture ${id}]`);
  for (const [token, id] of vocabFixture.tokens as [string, number][]) lines[id] = token;
  return `${lines.join("\n")}\n`;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "litsearch-wordpiece-"));
  writeFileSync(join(dir, "vocab.txt"), fixtureVocabText());
  // read as the model's vocab.txt is read: one token a line, its id the line number
  tokenizer = await loadWordpieceTokenizer(join(dir, "vocab.txt"), { modelName, lowercase: true });
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("BERT uncased WordPiece over the real vocabulary's pieces", () => {
  it("splits words greedily into the longest vocabulary pieces", () => {
    expect(tokenizer.tokenize("unaffable")).toEqual(["una", "##ffa", "##ble"]);
    expect(tokenizer.tokenize("biomaterials")).toEqual(["bio", "##mate", "##rial", "##s"]);
  });

  it("lower-cases, strips accents and splits punctuation, ASCII symbols included", () => {
    expect(tokenizer.tokenize("Café NAÏVE résumé")).toEqual(["cafe", "naive", "resume"]);
    expect(tokenizer.tokenize("Hello, World!")).toEqual(["hello", ",", "world", "!"]);
    expect(tokenizer.tokenize("p<0.05; $5 `x`")).toEqual(["p", "<", "0", ".", "05", ";", "$", "5", "`", "x", "`"]);
  });

  it("isolates CJK ideographs, drops control characters and treats any Unicode space as a separator", () => {
    expect(tokenizer.tokenize("中文")).toEqual(["中", "文"]);
    expect(tokenizer.tokenize("a\u0000b\u00a0c\td")).toEqual(["ab", "c", "d"]);
  });

  it("maps unknown words and over-long words to [UNK]", () => {
    expect(tokenizer.tokenize("🧬")).toEqual(["[UNK]"]);
    expect(tokenizer.tokenize("x".repeat(101))).toEqual(["[UNK]"]);
  });

  it("gives the same ids as the HF tokenizers reference on hand-picked strings", () => {
    for (const { text, ids } of reference.cases) {
      expect(tokenizer.pieceIds(text), JSON.stringify(text)).toEqual(ids);
    }
  });

  it("encodes model input with [CLS] and [SEP], truncating to maxLen", () => {
    const cls = tokenizer.idOf("[CLS]");
    const sep = tokenizer.idOf("[SEP]");
    const short = tokenizer.encode("hello world", 16);
    expect(short.inputIds).toEqual([cls, tokenizer.idOf("hello"), tokenizer.idOf("world"), sep]);
    expect(short.attentionMask).toEqual([1, 1, 1, 1]);

    const long = tokenizer.encode("word ".repeat(600), 256);
    expect(long.inputIds).toHaveLength(256);
    expect(long.inputIds[0]).toBe(cls);
    expect(long.inputIds[255]).toBe(sep);
    expect(tokenizer.encode("", 8).inputIds).toEqual([cls, sep]);
  });

  it("counts pieces without special tokens and without truncation", () => {
    expect(tokenizer.count("unaffable")).toBe(3);
    expect(tokenizer.count("word ".repeat(600))).toBe(600);
    expect(tokenizer.count("")).toBe(0);
  });

  it("names itself after the scheme and the model", () => {
    expect(tokenizer.name).toBe(`bert-wordpiece-uncased/${modelName}`);
  });
});

describe("WordPiece tokenizer construction", () => {
  it("refuses a vocabulary without the special tokens", () => {
    expect(() => createWordpieceTokenizer({ vocab: ["a", "b"], modelName: "toy" })).toThrow(/no \[UNK\] token/);
  });

  it("keeps case and accents for a cased vocabulary", () => {
    const cased = createWordpieceTokenizer({
      vocab: ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "Café", "##s"],
      modelName: "toy",
      lowercase: false,
    });
    expect(cased.name).toBe("bert-wordpiece-cased/toy");
    expect(cased.tokenize("Cafés café")).toEqual(["Café", "##s", "[UNK]"]);
  });
});
