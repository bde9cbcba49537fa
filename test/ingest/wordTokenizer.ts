// A whitespace Tokenizer for unit tests of chunk boundaries: one token per whitespace-separated word.
import type { Tokenizer } from "../../src/embedding/port.js";

export const whitespaceTokenizer: Tokenizer = {
  name: "whitespace-test",
  count: (text) => text.split(/\s+/).filter(Boolean).length,
};
