// Hand-assembled WebAssembly kernels for the dense scan: the opcodes, the encoding of a one-function module that
// imports its memory, and the part of the WebAssembly JS API used (the project's type libraries do not declare it).

// Core opcodes, then SIMD ones after the 0xfd prefix (multi-byte ones are LEB128).
export const OP = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  void: 0x40,
  localGet: 0x20,
  localSet: 0x21,
  i32Const: 0x41,
  f32Load: 0x2a,
  i32Store: 0x36,
  f64Store: 0x39,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32And: 0x71,
  i32Shl: 0x74,
  f64Add: 0xa0,
  f64Mul: 0xa2,
  f64PromoteF32: 0xbb,
} as const;
const SIMD = 0xfd;
export const SIMD_OP = {
  v128Load: [SIMD, 0x00],
  v128Const: [SIMD, 0x0c],
  i32x4ExtractLane: [SIMD, 0x1b],
  f64x2ExtractLane: [SIMD, 0x21],
  v128Load64Zero: [SIMD, 0x5d],
  f64x2PromoteLowF32x4: [SIMD, 0x5f],
  i16x8ExtendLowI8x16S: [SIMD, 0x87, 0x01],
  i16x8ExtendHighI8x16S: [SIMD, 0x88, 0x01],
  i32x4Add: [SIMD, 0xae, 0x01],
  i32x4DotI16x8S: [SIMD, 0xba, 0x01],
  f64x2Add: [SIMD, 0xf0, 0x01],
  f64x2Mul: [SIMD, 0xf2, 0x01],
} as const;
export const ZERO_V128 = [...SIMD_OP.v128Const, ...new Array<number>(16).fill(0)];

export const increment = (local: number, by: number) => [
  OP.localGet,
  local,
  OP.i32Const,
  by,
  OP.i32Add,
  OP.localSet,
  local,
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

/**
 * A module exporting one function `exportName(i32 x params) -> ()` with `body` (locals then code), importing
 * env.memory.
 */
export function kernelModuleBytes(exportName: string, params: number, body: number[]): Uint8Array {
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [1, 0x60, params, ...new Array<number>(params).fill(0x7f), 0]),
    // import env.memory, at least one page
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name(exportName), 0x00, 0]),
    ...section(10, [1, ...leb128(body.length), ...body]),
  ]);
}

interface WasmModule {
  readonly kind: "compiled wasm module";
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

const WASM_PAGE = 65_536;
/** wasm32 addresses at most 4 GiB */
const MAX_WASM_BYTES = 4 * 1024 * 1024 * 1024 - WASM_PAGE;

export function align16(bytes: number): number {
  return Math.ceil(bytes / 16) * 16;
}

/** A compiled kernel, or undefined where WebAssembly SIMD is unavailable; compiled once, on first use. */
export function lazyKernel(bytes: Uint8Array): () => WasmModule | undefined {
  let compiled: WasmModule | null | undefined;
  return () => {
    if (compiled === undefined) compiled = webAssembly?.validate(bytes) ? new webAssembly.Module(bytes) : null;
    return compiled ?? undefined;
  };
}

/**
 * An instance of `module` over a fresh memory of `bytes`, and its exported function; undefined when that much
 * memory is beyond wasm32 or cannot be had (the caller then falls back to JS).
 */
export function instantiateKernel<F>(
  module: WasmModule | undefined,
  exportName: string,
  bytes: number,
): { memory: WasmMemory; run: F } | undefined {
  if (!webAssembly || !module || bytes > MAX_WASM_BYTES) return undefined;
  let memory: WasmMemory;
  try {
    memory = new webAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / WASM_PAGE)) });
  } catch {
    return undefined;
  }
  const instance = new webAssembly.Instance(module, { env: { memory } });
  return { memory, run: instance.exports[exportName] as F };
}
