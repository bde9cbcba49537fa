// The vector matrix of a segment and its brute-force scorer: a small WebAssembly SIMD kernel (f64x2 lanes) that
// computes every row's dot product with exactly fusion.ts's dotProduct arithmetic, ~4x faster than the JS loop.
import { dotProduct } from '../fusion.js';

/** Row-major Float32 vectors plus a scorer writing one cosine per row. */
export interface VectorMatrix {
  readonly rows: number;
  readonly dims: number;
  /** rows * dims floats */
  readonly vectors: Float32Array;
  /** dot product of `query` with every row, in row order; the returned array is reused by the next call */
  scoreAll(query: Float32Array): Float64Array;
}

// WebAssembly opcodes used below (core, then SIMD after the 0xfd prefix; multi-byte ones are LEB128).
const OP = {
  block: 0x02, loop: 0x03, end: 0x0b, br: 0x0c, brIf: 0x0d, void: 0x40,
  localGet: 0x20, localSet: 0x21, i32Const: 0x41,
  f32Load: 0x2a, f64Store: 0x39, i32GeU: 0x4f, i32Add: 0x6a, i32And: 0x71, i32Shl: 0x74,
  f64Add: 0xa0, f64Mul: 0xa2, f64PromoteF32: 0xbb,
} as const;
const SIMD = 0xfd;
const V128_CONST = [SIMD, 0x0c];
const V128_LOAD64_ZERO = [SIMD, 0x5d];
const F64X2_PROMOTE_LOW_F32X4 = [SIMD, 0x5f];
const F64X2_EXTRACT_LANE = [SIMD, 0x21];
const F64X2_ADD = [SIMD, 0xf0, 0x01];
const F64X2_MUL = [SIMD, 0xf2, 0x01];

// Locals of scan(q, m, dims, rows, out): parameters 0-4, then these.
const Q = 0, M = 1, DIMS = 2, ROWS = 3, OUT = 4, R = 5, I = 6, ROW = 7, BLOCK_END = 8, ROW_BYTES = 9, ACC_LOW = 10, ACC_HIGH = 11, SUM = 12;

/** address of element i of the vector starting at local `base`: base + i * 4 */
const elementAddress = (base: number) => [OP.localGet, base, OP.localGet, I, OP.i32Const, 2, OP.i32Shl, OP.i32Add];
/** two floats at `offset` bytes past the element address, widened to an f64x2 */
const twoFloatsAsDoubles = (base: number, offset: number) => [
  ...elementAddress(base), ...V128_LOAD64_ZERO, 2, offset, ...F64X2_PROMOTE_LOW_F32X4,
];
/** acc += (q pair) * (row pair): lanes hold s0/s1 (offset 0) or s2/s3 (offset 8) of dotProduct */
const accumulatePair = (acc: number, offset: number) => [
  OP.localGet, acc, ...twoFloatsAsDoubles(Q, offset), ...twoFloatsAsDoubles(ROW, offset), ...F64X2_MUL, ...F64X2_ADD, OP.localSet, acc,
];
const lanesSum = (acc: number) => [OP.localGet, acc, ...F64X2_EXTRACT_LANE, 0, OP.localGet, acc, ...F64X2_EXTRACT_LANE, 1, OP.f64Add];
const increment = (local: number, by: number) => [OP.localGet, local, OP.i32Const, by, OP.i32Add, OP.localSet, local];

const SCAN_BODY = [
  // locals: 5 x i32 (r, i, row, blockEnd, rowBytes), 2 x v128, 1 x f64
  3, 5, 0x7f, 2, 0x7b, 1, 0x7c,
  OP.localGet, DIMS, OP.i32Const, 0x7c /* -4 */, OP.i32And, OP.localSet, BLOCK_END,
  OP.localGet, DIMS, OP.i32Const, 2, OP.i32Shl, OP.localSet, ROW_BYTES,
  OP.localGet, M, OP.localSet, ROW,
  OP.i32Const, 0, OP.localSet, R,
  OP.block, OP.void, OP.loop, OP.void,
  OP.localGet, R, OP.localGet, ROWS, OP.i32GeU, OP.brIf, 1,
  ...V128_CONST, ...new Array(16).fill(0), OP.localSet, ACC_LOW,
  ...V128_CONST, ...new Array(16).fill(0), OP.localSet, ACC_HIGH,
  OP.i32Const, 0, OP.localSet, I,
  // blocks of four dimensions
  OP.block, OP.void, OP.loop, OP.void,
  OP.localGet, I, OP.localGet, BLOCK_END, OP.i32GeU, OP.brIf, 1,
  ...accumulatePair(ACC_LOW, 0),
  ...accumulatePair(ACC_HIGH, 8),
  ...increment(I, 4),
  OP.br, 0, OP.end, OP.end,
  // sum = (s0 + s1) + (s2 + s3)
  ...lanesSum(ACC_LOW), ...lanesSum(ACC_HIGH), OP.f64Add, OP.localSet, SUM,
  // remaining dimensions one by one
  OP.block, OP.void, OP.loop, OP.void,
  OP.localGet, I, OP.localGet, DIMS, OP.i32GeU, OP.brIf, 1,
  OP.localGet, SUM,
  ...elementAddress(Q), OP.f32Load, 2, 0, OP.f64PromoteF32,
  ...elementAddress(ROW), OP.f32Load, 2, 0, OP.f64PromoteF32,
  OP.f64Mul, OP.f64Add, OP.localSet, SUM,
  ...increment(I, 1),
  OP.br, 0, OP.end, OP.end,
  // out[r] = sum; next row
  OP.localGet, OUT, OP.localGet, R, OP.i32Const, 3, OP.i32Shl, OP.i32Add, OP.localGet, SUM, OP.f64Store, 3, 0,
  OP.localGet, ROW, OP.localGet, ROW_BYTES, OP.i32Add, OP.localSet, ROW,
  ...increment(R, 1),
  OP.br, 0, OP.end, OP.end,
  OP.end,
];

function leb128(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

function section(id: number, content: number[]): number[] {
  return [id, ...leb128(content.length), ...content];
}

const name = (text: string) => [text.length, ...Array.from(text, (char) => char.charCodeAt(0))];

const MODULE_BYTES = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  // type 0: (i32 x 5) -> ()
  ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
  // import env.memory, at least one page
  ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]),
  ...section(3, [1, 0]),
  ...section(7, [1, ...name('scan'), 0x00, 0]),
  ...section(10, [1, ...leb128(SCAN_BODY.length), ...SCAN_BODY]),
]);

/** The part of the WebAssembly JS API used here (the project's type libraries do not declare it). */
interface WasmModule {
  readonly kind: 'compiled wasm module';
}
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WebAssemblyApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: { env: { memory: WasmMemory } }) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const webAssembly = (globalThis as unknown as { WebAssembly?: WebAssemblyApi }).WebAssembly;

let compiled: WasmModule | null | undefined;

/** The compiled kernel, or null where WebAssembly SIMD is unavailable. */
function kernelModule(): WasmModule | null {
  if (compiled === undefined) {
    compiled = webAssembly?.validate(MODULE_BYTES) ? new webAssembly.Module(MODULE_BYTES) : null;
  }
  return compiled;
}

const WASM_PAGE = 65_536;
/** wasm32 addresses at most 4 GiB; larger matrices use the JS loop */
const MAX_WASM_BYTES = 4 * 1024 * 1024 * 1024 - WASM_PAGE;

function align16(bytes: number): number {
  return Math.ceil(bytes / 16) * 16;
}

function createWasmMatrix(api: WebAssemblyApi, module: WasmModule, rows: number, dims: number): VectorMatrix | undefined {
  const vectorBytes = align16(rows * dims * 4);
  const queryOffset = vectorBytes;
  const outOffset = queryOffset + align16(dims * 4);
  const totalBytes = outOffset + rows * 8;
  if (totalBytes > MAX_WASM_BYTES) return undefined;
  let memory: WasmMemory;
  try {
    memory = new api.Memory({ initial: Math.max(1, Math.ceil(totalBytes / WASM_PAGE)) });
  } catch {
    return undefined;
  }
  const instance = new api.Instance(module, { env: { memory } });
  const scan = instance.exports.scan as (q: number, m: number, dims: number, rows: number, out: number) => void;
  // the memory never grows, so these views stay valid
  const vectors = new Float32Array(memory.buffer, 0, rows * dims);
  const query = new Float32Array(memory.buffer, queryOffset, dims);
  const scores = new Float64Array(memory.buffer, outOffset, rows);
  return {
    rows,
    dims,
    vectors,
    scoreAll(input) {
      query.set(input);
      scan(queryOffset, 0, dims, rows, outOffset);
      return scores;
    },
  };
}

function createJsMatrix(rows: number, dims: number): VectorMatrix {
  const vectors = new Float32Array(rows * dims);
  const scores = new Float64Array(rows);
  return {
    rows,
    dims,
    vectors,
    scoreAll(query) {
      for (let row = 0; row < rows; row++) scores[row] = dotProduct(query, vectors, row * dims, dims);
      return scores;
    },
  };
}

/** A zero-filled matrix of `rows` vectors; the WebAssembly kernel unless `portable` or SIMD is unavailable. */
export function createVectorMatrix(rows: number, dims: number, portable = false): VectorMatrix {
  const module = portable ? null : kernelModule();
  return (webAssembly && module && createWasmMatrix(webAssembly, module, rows, dims)) || createJsMatrix(rows, dims);
}
