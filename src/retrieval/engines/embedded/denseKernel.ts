// The vector matrix of a segment and its brute-force scorer: a small WebAssembly SIMD kernel (f64x2 lanes) that
// computes every row's dot product with exactly fusion.ts's dotProduct arithmetic, ~4x faster than the JS loop.
import { dotProduct } from "../../fusion.js";
import {
  align16,
  increment,
  instantiateKernel,
  kernelModuleBytes,
  lazyKernel,
  OP,
  SIMD_OP,
  ZERO_V128,
} from "./wasmKernel.js";

/** Row-major Float32 vectors plus a scorer writing one cosine per row. */
export interface VectorMatrix {
  readonly rows: number;
  readonly dims: number;
  /** rows * dims floats */
  readonly vectors: Float32Array;
  /** dot product of `query` with every row, in row order; the returned array is reused by the next call */
  scoreAll(query: Float32Array): Float64Array;
  /** scores single rows against `query` like scoreAll does, until the next scoreAll or scoreRows */
  scoreRows(query: Float32Array): (row: number) => number;
}

// Locals of scan(q, m, dims, rows, out): parameters 0-4, then these.
const Q = 0,
  M = 1,
  DIMS = 2,
  ROWS = 3,
  OUT = 4,
  R = 5,
  I = 6,
  ROW = 7,
  BLOCK_END = 8,
  ROW_BYTES = 9,
  ACC_LOW = 10,
  ACC_HIGH = 11,
  SUM = 12;

/** address of element i of the vector starting at local `base`: base + i * 4 */
const elementAddress = (base: number) => [OP.localGet, base, OP.localGet, I, OP.i32Const, 2, OP.i32Shl, OP.i32Add];
/** two floats at `offset` bytes past the element address, widened to an f64x2 */
const twoFloatsAsDoubles = (base: number, offset: number) => [
  ...elementAddress(base),
  ...SIMD_OP.v128Load64Zero,
  2,
  offset,
  ...SIMD_OP.f64x2PromoteLowF32x4,
];
/** acc += (q pair) * (row pair): lanes hold s0/s1 (offset 0) or s2/s3 (offset 8) of dotProduct */
const accumulatePair = (acc: number, offset: number) => [
  OP.localGet,
  acc,
  ...twoFloatsAsDoubles(Q, offset),
  ...twoFloatsAsDoubles(ROW, offset),
  ...SIMD_OP.f64x2Mul,
  ...SIMD_OP.f64x2Add,
  OP.localSet,
  acc,
];
const lanesSum = (acc: number) => [
  OP.localGet,
  acc,
  ...SIMD_OP.f64x2ExtractLane,
  0,
  OP.localGet,
  acc,
  ...SIMD_OP.f64x2ExtractLane,
  1,
  OP.f64Add,
];

const SCAN_BODY = [
  // locals: 5 x i32 (r, i, row, blockEnd, rowBytes), 2 x v128, 1 x f64
  3,
  5,
  0x7f,
  2,
  0x7b,
  1,
  0x7c,
  OP.localGet,
  DIMS,
  OP.i32Const,
  0x7c /* -4 */,
  OP.i32And,
  OP.localSet,
  BLOCK_END,
  OP.localGet,
  DIMS,
  OP.i32Const,
  2,
  OP.i32Shl,
  OP.localSet,
  ROW_BYTES,
  OP.localGet,
  M,
  OP.localSet,
  ROW,
  OP.i32Const,
  0,
  OP.localSet,
  R,
  OP.block,
  OP.void,
  OP.loop,
  OP.void,
  OP.localGet,
  R,
  OP.localGet,
  ROWS,
  OP.i32GeU,
  OP.brIf,
  1,
  ...ZERO_V128,
  OP.localSet,
  ACC_LOW,
  ...ZERO_V128,
  OP.localSet,
  ACC_HIGH,
  OP.i32Const,
  0,
  OP.localSet,
  I,
  // blocks of four dimensions
  OP.block,
  OP.void,
  OP.loop,
  OP.void,
  OP.localGet,
  I,
  OP.localGet,
  BLOCK_END,
  OP.i32GeU,
  OP.brIf,
  1,
  ...accumulatePair(ACC_LOW, 0),
  ...accumulatePair(ACC_HIGH, 8),
  ...increment(I, 4),
  OP.br,
  0,
  OP.end,
  OP.end,
  // sum = (s0 + s1) + (s2 + s3)
  ...lanesSum(ACC_LOW),
  ...lanesSum(ACC_HIGH),
  OP.f64Add,
  OP.localSet,
  SUM,
  // remaining dimensions one by one
  OP.block,
  OP.void,
  OP.loop,
  OP.void,
  OP.localGet,
  I,
  OP.localGet,
  DIMS,
  OP.i32GeU,
  OP.brIf,
  1,
  OP.localGet,
  SUM,
  ...elementAddress(Q),
  OP.f32Load,
  2,
  0,
  OP.f64PromoteF32,
  ...elementAddress(ROW),
  OP.f32Load,
  2,
  0,
  OP.f64PromoteF32,
  OP.f64Mul,
  OP.f64Add,
  OP.localSet,
  SUM,
  ...increment(I, 1),
  OP.br,
  0,
  OP.end,
  OP.end,
  // out[r] = sum; next row
  OP.localGet,
  OUT,
  OP.localGet,
  R,
  OP.i32Const,
  3,
  OP.i32Shl,
  OP.i32Add,
  OP.localGet,
  SUM,
  OP.f64Store,
  3,
  0,
  OP.localGet,
  ROW,
  OP.localGet,
  ROW_BYTES,
  OP.i32Add,
  OP.localSet,
  ROW,
  ...increment(R, 1),
  OP.br,
  0,
  OP.end,
  OP.end,
  OP.end,
];

const scanModule = lazyKernel(kernelModuleBytes("scan", 5, SCAN_BODY));

function createWasmMatrix(rows: number, dims: number): VectorMatrix | undefined {
  const vectorBytes = align16(rows * dims * 4);
  const queryOffset = vectorBytes;
  const outOffset = queryOffset + align16(dims * 4);
  type Scan = (q: number, m: number, dims: number, rows: number, out: number) => void;
  const kernel = instantiateKernel<Scan>(scanModule(), "scan", outOffset + rows * 8);
  if (!kernel) return undefined;
  const { memory, run: scan } = kernel;
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
    scoreRows(input) {
      query.set(input);
      return (row) => {
        scan(queryOffset, row * dims * 4, dims, 1, outOffset);
        return scores[0];
      };
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
    scoreRows(query) {
      return (row) => dotProduct(query, vectors, row * dims, dims);
    },
  };
}

/** A zero-filled matrix of `rows` vectors; the WebAssembly kernel unless `portable` or SIMD is unavailable. */
export function createVectorMatrix(rows: number, dims: number, portable = false): VectorMatrix {
  return (!portable && createWasmMatrix(rows, dims)) || createJsMatrix(rows, dims);
}
