// LZ4 block compression through lz4-wasm (lz4_flex compiled to WebAssembly), loaded from the
// inlined module so it works on Node, Deno and inside bundles with no file beside it.
import { LZ4_WASM_BASE64 } from './lz4-wasm.generated.ts'

interface Lz4Exports {
  memory: WebAssembly.Memory
  compress(retptr: number, ptr: number, len: number): void
  __wbindgen_add_to_stack_pointer(delta: number): number
  __wbindgen_malloc(size: number): number
  __wbindgen_free(ptr: number, size: number): void
}

let wasm: Lz4Exports | undefined

function load(): Lz4Exports {
  const binary = atob(LZ4_WASM_BASE64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  const decoder = new TextDecoder()
  let exports: Lz4Exports | undefined
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
    // Only reached by lz4-wasm's own decompress errors, which this codec never calls.
    './lz4_wasm_bg.js': {
      __wbindgen_string_new: (ptr: number, len: number) => decoder.decode(new Uint8Array(exports!.memory.buffer, ptr, len)),
    },
  })
  exports = instance.exports as unknown as Lz4Exports
  return exports
}

/**
 * Compresses `input` into one raw LZ4 block (no size prefix, no frame). The result is a fresh
 * array; it may be larger than the input for incompressible data.
 */
export function compressBlock(input: Uint8Array): Uint8Array {
  const w = (wasm ??= load())
  const retptr = w.__wbindgen_add_to_stack_pointer(-16)
  try {
    const ptr = w.__wbindgen_malloc(input.length)
    new Uint8Array(w.memory.buffer, ptr, input.length).set(input)
    w.compress(retptr, ptr, input.length) // takes ownership of the input allocation
    const words = new Int32Array(w.memory.buffer, retptr, 2)
    const outPtr = words[0]!
    const outLen = words[1]!
    // lz4_flex's compress_prepend_size: a u32 LE uncompressed size, then the block.
    const block = new Uint8Array(w.memory.buffer, outPtr + 4, outLen - 4).slice()
    w.__wbindgen_free(outPtr, outLen)
    return block
  } finally {
    w.__wbindgen_add_to_stack_pointer(16)
  }
}
