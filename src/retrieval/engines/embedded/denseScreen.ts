// A screen for the dense scan: an int8 copy of the vector matrix (a quarter of the memory traffic) scanned by a
// WebAssembly SIMD kernel, giving every row an estimate of its dot product with a rigorous bound on the error, so
// the exact f64 arithmetic is needed only for rows whose bound lets them reach the top k.
import type { VectorMatrix } from "./denseKernel.js";
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

export interface DenseEstimates {
  /** per row: an estimate of the dot product as fusion.ts's dotProduct computes it */
  readonly estimates: Float64Array;
  /** per row: |dotProduct - estimate| is at most this (Infinity for a row that cannot be estimated) */
  readonly errors: Float64Array;
}

export interface DenseScreen {
  /** estimates for `query`, or undefined when it has no finite estimate; the arrays are reused by the next call */
  estimate(query: Float32Array): DenseEstimates | undefined;
}

const ROW_LEVELS = 127;
/**
 * Covers every floating-point rounding in the bound's terms (the exact dot product's own f64 summation, the
 * residual norms, the estimate's products): each is within dims * 2^-53 of |q| * |v|, about 1e-12 at 10^4 dims.
 */
const ROUNDING_SLACK = 1e-9;

// Locals of screen(q, m, stride, rows, out): parameters 0-4, then these. Rows go in pairs, sharing the query's loads.
const Q = 0,
  M = 1,
  STRIDE = 2,
  ROWS = 3,
  OUT = 4,
  R = 5,
  I = 6,
  ROW = 7,
  NEXT = 8,
  QP = 9,
  ACC_A = 10,
  ACC_B = 11,
  BYTES = 12,
  Q_LOW = 13,
  Q_HIGH = 14;

/** acc += the sixteen int8 at base + i, widened, . the query's sixteen i16 held in Q_LOW and Q_HIGH */
const accumulateSixteen = (acc: number, base: number) => [
  OP.localGet,
  base,
  OP.localGet,
  I,
  OP.i32Add,
  ...SIMD_OP.v128Load,
  4,
  0,
  OP.localSet,
  BYTES,
  OP.localGet,
  acc,
  OP.localGet,
  BYTES,
  ...SIMD_OP.i16x8ExtendLowI8x16S,
  OP.localGet,
  Q_LOW,
  ...SIMD_OP.i32x4DotI16x8S,
  ...SIMD_OP.i32x4Add,
  OP.localGet,
  BYTES,
  ...SIMD_OP.i16x8ExtendHighI8x16S,
  OP.localGet,
  Q_HIGH,
  ...SIMD_OP.i32x4DotI16x8S,
  ...SIMD_OP.i32x4Add,
  OP.localSet,
  acc,
];
/** the sum of acc's four lanes (exact: the kernel's caller keeps every sum below 2^31) */
const lanesSum = (acc: number) => [
  OP.localGet,
  acc,
  ...SIMD_OP.i32x4ExtractLane,
  0,
  OP.localGet,
  acc,
  ...SIMD_OP.i32x4ExtractLane,
  1,
  OP.i32Add,
  OP.localGet,
  acc,
  ...SIMD_OP.i32x4ExtractLane,
  2,
  OP.i32Add,
  OP.localGet,
  acc,
  ...SIMD_OP.i32x4ExtractLane,
  3,
  OP.i32Add,
];
const outAddress = [OP.localGet, OUT, OP.localGet, R, OP.i32Const, 2, OP.i32Shl, OP.i32Add];

const SCREEN_BODY = [
  // locals: 5 x i32 (r, i, row, next, qp), 5 x v128 (accA, accB, bytes, qLow, qHigh)
  2,
  5,
  0x7f,
  5,
  0x7b,
  OP.localGet,
  M,
  OP.localSet,
  ROW,
  OP.i32Const,
  0,
  OP.localSet,
  R,
  // rows is even (the caller pads with a zero row)
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
  OP.localGet,
  ROW,
  OP.localGet,
  STRIDE,
  OP.i32Add,
  OP.localSet,
  NEXT,
  ...ZERO_V128,
  OP.localSet,
  ACC_A,
  ...ZERO_V128,
  OP.localSet,
  ACC_B,
  OP.i32Const,
  0,
  OP.localSet,
  I,
  OP.localGet,
  Q,
  OP.localSet,
  QP,
  // sixteen dimensions at a time (rows and query are zero-padded to the stride)
  OP.block,
  OP.void,
  OP.loop,
  OP.void,
  OP.localGet,
  I,
  OP.localGet,
  STRIDE,
  OP.i32GeU,
  OP.brIf,
  1,
  OP.localGet,
  QP,
  ...SIMD_OP.v128Load,
  4,
  0,
  OP.localSet,
  Q_LOW,
  OP.localGet,
  QP,
  ...SIMD_OP.v128Load,
  4,
  16,
  OP.localSet,
  Q_HIGH,
  ...accumulateSixteen(ACC_A, ROW),
  ...accumulateSixteen(ACC_B, NEXT),
  ...increment(I, 16),
  ...increment(QP, 32),
  OP.br,
  0,
  OP.end,
  OP.end,
  ...outAddress,
  ...lanesSum(ACC_A),
  OP.i32Store,
  2,
  0,
  ...outAddress,
  ...lanesSum(ACC_B),
  OP.i32Store,
  2,
  4,
  OP.localGet,
  NEXT,
  OP.localGet,
  STRIDE,
  OP.i32Add,
  OP.localSet,
  ROW,
  ...increment(R, 2),
  OP.br,
  0,
  OP.end,
  OP.end,
  OP.end,
];

const screenModule = lazyKernel(kernelModuleBytes("screen", 5, SCREEN_BODY));

type ScreenKernel = (q: number, m: number, stride: number, rows: number, out: number) => void;

function sumOfSquares(values: ArrayLike<number>, start: number, count: number): number {
  let sum = 0;
  for (let i = start; i < start + count; i++) sum += values[i] * values[i];
  return sum;
}

/**
 * Quantizes each row to int8 with its own scale s (v = s * qv + e, |e| <= s / 2) and the query to integers as fine
 * as the i32 sums allow (q = t * u + d). Then q.v = t * s * (u . qv) + d . (s * qv) + q . e exactly, so by
 * Cauchy-Schwarz the estimate t * s * (u . qv) is off by at most |d| * |s * qv| + |q| * |e|, both norms known.
 */
function createWasmScreen(matrix: VectorMatrix): DenseScreen | undefined {
  const { rows, dims, vectors } = matrix;
  const stride = align16(dims);
  const pairedRows = rows + (rows % 2);
  const queryOffset = pairedRows * stride;
  const outOffset = queryOffset + stride * 2;
  const kernel = instantiateKernel<ScreenKernel>(screenModule(), "screen", outOffset + pairedRows * 4);
  if (!kernel) return undefined;
  const { memory, run: screen } = kernel;
  // the memory never grows, so these views stay valid
  const codes = new Int8Array(memory.buffer, 0, rows * stride);
  const query = new Int16Array(memory.buffer, queryOffset, stride);
  const dots = new Int32Array(memory.buffer, outOffset, rows);
  /** largest |u_i| keeping |u . qv| below 2^31, at most what an i16 holds */
  const queryLevels = Math.min(32_767, Math.floor((2 ** 31 - 1) / (ROW_LEVELS * stride)));
  const scales = new Float64Array(rows);
  /** |e| per row, and |s * qv| */
  const residualNorms = new Float64Array(rows);
  const codeNorms = new Float64Array(rows);
  const rowNorms = new Float64Array(rows);
  const estimates = new Float64Array(rows);
  const errors = new Float64Array(rows);
  let quantized = false;

  // The segment fills the matrix after creating it and never changes it afterwards, so quantize on first use.
  function quantizeRows(): void {
    for (let row = 0; row < rows; row++) {
      const base = row * dims;
      let largest = 0;
      for (let i = 0; i < dims; i++) largest = Math.max(largest, Math.abs(vectors[base + i]));
      if (!Number.isFinite(largest)) {
        // NaN or infinite components: no estimate, the row is always scored exactly
        residualNorms[row] = Infinity;
        continue;
      }
      const scale = largest / ROW_LEVELS;
      let residuals = 0;
      let codeSquares = 0;
      for (let i = 0; i < dims; i++) {
        const value = vectors[base + i];
        // clamped for subnormal scales, whose quotients can round past the range; the residual keeps the bound exact
        const code = scale === 0 ? 0 : Math.max(-ROW_LEVELS, Math.min(ROW_LEVELS, Math.round(value / scale)));
        codes[row * stride + i] = code;
        const residual = value - scale * code;
        residuals += residual * residual;
        codeSquares += code * code;
      }
      scales[row] = scale;
      residualNorms[row] = Math.sqrt(residuals);
      codeNorms[row] = scale * Math.sqrt(codeSquares);
      rowNorms[row] = Math.sqrt(sumOfSquares(vectors, base, dims));
    }
    quantized = true;
  }

  return {
    estimate(input) {
      if (!quantized) quantizeRows();
      let largest = 0;
      for (let i = 0; i < dims; i++) largest = Math.max(largest, Math.abs(input[i]));
      if (!Number.isFinite(largest)) return undefined;
      const step = largest / queryLevels;
      let differences = 0;
      for (let i = 0; i < dims; i++) {
        const code = step === 0 ? 0 : Math.max(-queryLevels, Math.min(queryLevels, Math.round(input[i] / step)));
        query[i] = code;
        const difference = input[i] - step * code;
        differences += difference * difference;
      }
      const queryNorm = Math.sqrt(sumOfSquares(input, 0, dims));
      const differenceNorm = Math.sqrt(differences);
      screen(queryOffset, 0, stride, pairedRows, outOffset);
      for (let row = 0; row < rows; row++) {
        estimates[row] = step * scales[row] * dots[row];
        errors[row] =
          residualNorms[row] === Infinity
            ? Infinity
            : differenceNorm * codeNorms[row] +
              queryNorm * residualNorms[row] +
              ROUNDING_SLACK * queryNorm * (rowNorms[row] + codeNorms[row]);
      }
      return { estimates, errors };
    },
  };
}

/** The int8 screen of `matrix`, or undefined where WebAssembly SIMD is unavailable (the exact scan then runs alone). */
export function createDenseScreen(matrix: VectorMatrix): DenseScreen | undefined {
  return createWasmScreen(matrix);
}
