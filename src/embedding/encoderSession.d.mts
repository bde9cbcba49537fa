// Types of encoderSession.mjs (plain JavaScript so worker threads load it without the TypeScript loader).

export interface EncoderSessionOptions {
  /** absolute path of the ONNX file */
  onnxPath: string;
  /** the model's name, for error messages */
  name: string;
  dims: number;
  pooling: "cls" | "mean";
  padId: number;
  /** intra-op threads of the session */
  threads: number;
  /** ONNX Runtime's graph optimisation level; default "all" (bench/queryEmbedding.ts compares the others) */
  graphOptimizationLevel?: "disabled" | "basic" | "extended" | "all";
  /** ONNX Runtime's CPU memory arena; default on */
  memArena?: boolean;
}

interface EncoderSession {
  /** one unit vector per text of the batch, in batch order; each entry is [CLS] pieces [SEP], already truncated */
  encode(batch: readonly ArrayLike<number>[]): Promise<Float32Array[]>;
  release(): Promise<void>;
}

export function openEncoderSession(options: EncoderSessionOptions): Promise<EncoderSession>;
