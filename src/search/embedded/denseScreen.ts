// A screen for the dense scan: an int8 copy of the vector matrix (a quarter of the memory traffic) scanned by a
// WebAssembly SIMD kernel, giving every row an estimate of its dot product with a rigorous bound on the error, so
// the exact f64 arithmetic is needed only for rows whose bound lets them reach the top k.
import type { VectorMatrix } from './denseKernel.js';
import { align16, increment, instantiateKernel, kernelModuleBytes, lazyKernel, OP, SIMD_OP, ZERO_V128 } from './wasmKernel.js';

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
 * residual norms, the estimate's products), each below dims * 2^-53 relative, i.e. under 1e-12 up to 10^4 dims.
 */
const ROUNDING_SLACK = 1e-9;

// Locals of screen(q, m, stride, rows, out): parameters 0-4, then these.
const Q = 0, M = 1, STRIDE = 2, ROWS = 3, OUT = 4, R = 5, I = 6, ROW = 7, ACC = 8, BYTES = 9;

/** acc += int8 row bytes (low or high eight, widened) . the query's eight i16 at q + 2i + offset */
const accumulateHalf = (extend: readonly number[], offset: number) => [
  OP.localGet, ACC,
  OP.localGet, BYTES, ...extend,
  OP.localGet, Q, OP.localGet, I, OP.i32Const, 1, OP.i32Shl, OP.i32Add, ...SIMD_OP.v128Load, 4, offset,
  ...SIMD_OP.i32x4DotI16x8S, ...SIMD_OP.i32x4Add, OP.localSet, ACC,
];
const lane = (index: number) => [OP.localGet, ACC, ...SIMD_OP.i32x4ExtractLane, index];

const SCREEN_BODY = [
  // locals: 3 x i32 (r, i, row), 2 x v128 (acc, bytes)
  2, 3, 0x7f, 2, 0x7b,
  OP.localGet, M, OP.localSet, ROW,
  OP.i32Const, 0, OP.localSet, R,
  OP.block, OP.void, OP.loop, OP.void,
  OP.localGet, R, OP.localGet, ROWS, OP.i32GeU, OP.brIf, 1,
  ...ZERO_V128, OP.localSet, ACC,
  OP.i32Const, 0, OP.localSet, I,
  // sixteen dimensions at a time (rows and query are zero-padded to the stride)
  OP.block, OP.void, OP.loop, OP.void,
  OP.localGet, I, OP.localGet, STRIDE, OP.i32GeU, OP.brIf, 1,
  OP.localGet, ROW, OP.localGet, I, OP.i32Add, ...SIMD_OP.v128Load, 4, 0, OP.localSet, BYTES,
  ...accumulateHalf(SIMD_OP.i16x8ExtendLowI8x16S, 0),
  ...accumulateHalf(SIMD_OP.i16x8ExtendHighI8x16S, 16),
  ...increment(I, 16),
  OP.br, 0, OP.end, OP.end,
  // out[r] = sum of the lanes (exact: the kernel's caller keeps every sum below 2^31)
  OP.localGet, OUT, OP.localGet, R, OP.i32Const, 2, OP.i32Shl, OP.i32Add,
  ...lane(0), ...lane(1), OP.i32Add, ...lane(2), OP.i32Add, ...lane(3), OP.i32Add,
  OP.i32Store, 2, 0,
  OP.localGet, ROW, OP.localGet, STRIDE, OP.i32Add, OP.localSet, ROW,
  ...increment(R, 1),
  OP.br, 0, OP.end, OP.end,
  OP.end,
];

const screenModule = lazyKernel(kernelModuleBytes('screen', 5, SCREEN_BODY));

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
  const queryOffset = align16(rows * stride);
  const outOffset = queryOffset + stride * 2;
  const kernel = instantiateKernel<ScreenKernel>(screenModule(), 'screen', outOffset + rows * 4);
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
        const code = scale === 0 ? 0 : Math.round(value / scale);
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
        const code = step === 0 ? 0 : Math.round(input[i] / step);
        query[i] = code;
        const difference = input[i] - step * code;
        differences += difference * difference;
      }
      const queryNorm = Math.sqrt(sumOfSquares(input, 0, dims));
      const differenceNorm = Math.sqrt(differences);
      screen(queryOffset, 0, stride, rows, outOffset);
      for (let row = 0; row < rows; row++) {
        estimates[row] = step * scales[row] * dots[row];
        errors[row] =
          residualNorms[row] === Infinity
            ? Infinity
            : differenceNorm * codeNorms[row] + queryNorm * residualNorms[row] + ROUNDING_SLACK * queryNorm * (rowNorms[row] + codeNorms[row]);
      }
      return { estimates, errors };
    },
  };
}

/** The int8 screen of `matrix`, or undefined where WebAssembly SIMD is unavailable (the exact scan then runs alone). */
export function createDenseScreen(matrix: VectorMatrix): DenseScreen | undefined {
  return createWasmScreen(matrix);
}
