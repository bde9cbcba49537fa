// The wire of the inference servers operators run for embeddings: the OpenAI-compatible POST /v1/embeddings and
// Hugging Face Text Embeddings Inference POST /embed; request shaping and answer reading, pure.

export const EMBEDDING_PROTOCOLS = ["openai", "tei"] as const;
export type EmbeddingProtocol = (typeof EMBEDDING_PROTOCOLS)[number];

/** The server's answer could not be read as one vector per text. */
class EmbeddingResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmbeddingResponseError";
  }
}

/**
 * EMBEDDING_URL checked: an http(s) address without credentials (the key goes in EMBEDDING_API_KEY, never in a URL
 * that logs print), e.g. http://10.0.0.5:8080 (TEI) or https://inference.example.org/v1 (OpenAI-compatible).
 */
export function embeddingServerUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`EMBEDDING_URL must be an http(s) address such as http://127.0.0.1:8080, got ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`EMBEDDING_URL must be an http(s) address, got the ${url.protocol.replace(/:$/, "")} scheme`);
  if (url.username || url.password)
    throw new Error("EMBEDDING_URL must not carry credentials: give the key in EMBEDDING_API_KEY");
  if (url.search || url.hash) throw new Error("EMBEDDING_URL must be the server's base address, without ? or #");
  return url;
}

/** How many servers EMBEDDING_URL may list. */
const MAX_EMBEDDING_SERVERS = 16;

/**
 * EMBEDDING_URL's servers: one base address, or several separated by commas (servers of the same model, batches
 * spread over them), each checked as embeddingServerUrl checks one; none named twice.
 */
export function embeddingServerUrls(raw: string): URL[] {
  const parts = raw.split(",").map((part) => part.trim());
  const empty = parts.indexOf("");
  // the list is not echoed: an address refused later for its credentials would be in it
  if (empty >= 0)
    throw new Error(
      `EMBEDDING_URL's address ${empty + 1} of ${parts.length} is empty: separate the servers' addresses by ` +
        "single commas",
    );
  if (parts.length > MAX_EMBEDDING_SERVERS)
    throw new Error(`EMBEDDING_URL lists ${parts.length} servers; at most ${MAX_EMBEDDING_SERVERS}`);
  const urls = parts.map(embeddingServerUrl);
  const seen = new Set<string>();
  for (const url of urls) {
    if (seen.has(url.href)) throw new Error(`EMBEDDING_URL names ${url.href} twice`);
    seen.add(url.href);
  }
  return urls;
}

/** The address a batch is posted to: BASE/v1/embeddings (BASE/embeddings when BASE ends in /v1) or BASE/embed. */
export function embeddingEndpoint(base: URL, protocol: EmbeddingProtocol): string {
  const path = base.pathname.replace(/\/+$/, "");
  const tail = protocol === "tei" ? "/embed" : /\/v1$/.test(path) ? "/embeddings" : "/v1/embeddings";
  return `${base.origin}${path}${tail}`;
}

/** The JSON body of one batch; TEI is asked to normalize and to truncate what its model cannot take. */
export function embeddingRequestBody(protocol: EmbeddingProtocol, texts: readonly string[], model?: string): unknown {
  if (protocol === "tei") return { inputs: texts, normalize: true, truncate: true };
  return { input: texts, encoding_format: "float", ...(model ? { model } : {}) };
}

interface EmbeddingAnswer {
  /** one L2-normalized vector per text, in the texts' order */
  vectors: Float32Array[];
  /** the model the server says answered (OpenAI-compatible servers name it; TEI's /embed does not) */
  model?: string;
}

/** Reads a batch's answer: one finite vector per text, all of one width, returned L2-normalized. */
export function parseEmbeddingAnswer(protocol: EmbeddingProtocol, body: unknown, texts: number): EmbeddingAnswer {
  let rows: unknown[];
  let model: string | undefined;
  if (protocol === "tei") {
    if (!Array.isArray(body)) throw new EmbeddingResponseError("a TEI /embed answer must be an array of vectors");
    rows = body;
  } else {
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data))
      throw new EmbeddingResponseError("an OpenAI-compatible answer must hold a data array of embeddings");
    const named = (body as { model?: unknown }).model;
    model = typeof named === "string" && named.length > 0 ? named : undefined;
    // each item names its input's index; servers may answer out of order
    rows = new Array<unknown>(data.length);
    data.forEach((item: unknown, position) => {
      const index = (item as { index?: unknown } | null)?.index;
      const at = typeof index === "number" ? index : position;
      if (!Number.isInteger(at) || at < 0 || at >= data.length || rows[at] !== undefined)
        throw new EmbeddingResponseError(`an embedding's index is out of place: ${String(index)}`);
      rows[at] = (item as { embedding?: unknown }).embedding;
    });
  }
  if (rows.length !== texts)
    throw new EmbeddingResponseError(`the server answered ${rows.length} vectors for ${texts} texts`);
  const width = Array.isArray(rows[0]) ? rows[0].length : 0;
  const vectors = rows.map((row, i) => {
    if (!Array.isArray(row) || row.length === 0 || row.length !== width)
      throw new EmbeddingResponseError(`vector ${i} is not a list of ${width} numbers`);
    return normalized(row, i);
  });
  return model === undefined ? { vectors } : { vectors, model };
}

function normalized(row: unknown[], i: number): Float32Array {
  const vector = new Float32Array(row.length);
  let norm = 0;
  for (let d = 0; d < row.length; d++) {
    const x = row[d];
    if (typeof x !== "number" || !Number.isFinite(x))
      throw new EmbeddingResponseError(`vector ${i} holds a value that is not a finite number`);
    vector[d] = x;
    norm += x * x;
  }
  if (norm === 0) throw new EmbeddingResponseError(`vector ${i} is all zeros`);
  const scale = 1 / Math.sqrt(norm);
  for (let d = 0; d < vector.length; d++) vector[d]! *= scale;
  return vector;
}

/** Cosine of two L2-normalized vectors of one width. */
export function cosineOfUnit(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let d = 0; d < a.length; d++) dot += a[d]! * b[d]!;
  return dot;
}
