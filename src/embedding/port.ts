// The embedding port: turns text into L2-normalized vectors and counts tokens with the service's one tokenizer.

export interface Embedder {
  /**
   * the embedding path its vectors are known by: model, arithmetic and graph, e.g.
   * "bge-small-en-v1.5@fp32:afc83b99beef"
   */
  readonly modelName: string;
  readonly dims: number;
  /** embed passages (documents); `onEmbedded`, when given, hears how many of them are done as batches finish */
  embedPassages(texts: string[], onEmbedded?: (done: number) => void): Promise<Float32Array[]>;
  /** embed a search query (some models prefix queries with an instruction) */
  embedQuery(text: string): Promise<Float32Array>;
  close(): Promise<void>;
}

export interface Tokenizer {
  /** name of the tokenizer, reported in docs and used by billing */
  readonly name: string;
  /** number of tokens in text, without special tokens and without truncation */
  count(text: string): number;
}
