// The QuickJS engine (quickjs-emscripten's RELEASE_SYNC build), loaded once per isolate. workerd
// cannot fetch or compile WebAssembly at run time, so the .wasm is imported as a compiled module
// (wrangler's CompiledWasm rule, see wrangler.toml) and handed to the variant (DESIGN.md).
//
// The engine's WebAssembly memory is created here with a maximum (ENGINE_MEMORY_MAX_BYTES): in this
// build QuickJS's per-runtime memory limit counts allocations but not their sizes (emscripten has no
// malloc_usable_size), so a loop of large arrays or strings passed it and grew the memory towards
// 2 GB inside native code, where the interrupt handler never runs, holding the isolate for seconds.
// With a maximum, the allocation that would pass it fails at once and QuickJS throws "out of memory".
import RELEASE_SYNC from "@jitl/quickjs-wasmfile-release-sync";
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import { type QuickJSWASMModule, newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten";
import { ENGINE_MEMORY_INITIAL_BYTES, ENGINE_MEMORY_MAX_BYTES } from "./limits";

const PAGE = 64 * 1024;

let loading: Promise<QuickJSWASMModule> | undefined;
let memory: WebAssembly.Memory | undefined;

/** The engine; the first call instantiates it, later calls share it. */
export function quickjs(): Promise<QuickJSWASMModule> {
  if (loading) return loading;
  const wasmMemory = new WebAssembly.Memory({ initial: ENGINE_MEMORY_INITIAL_BYTES / PAGE, maximum: ENGINE_MEMORY_MAX_BYTES / PAGE });
  memory = wasmMemory;
  loading = newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule, wasmMemory })).catch((err) => {
    loading = undefined; // a failed load is retried by the next call
    throw err;
  });
  return loading;
}

/** Whether the engine's memory has grown to (nearly) its maximum: what an "out of memory" then means. */
export function engineMemoryFull(): boolean {
  return (memory?.buffer.byteLength ?? 0) > ENGINE_MEMORY_MAX_BYTES - 8 * 1024 * 1024;
}

/**
 * Forgets the engine, so the next call instantiates a fresh one. Used when the WebAssembly instance
 * itself failed (a trap, a failed dispose): its memory can no longer be trusted; and after its memory
 * grew to the maximum (it never shrinks): a fresh one starts small, the old one is collected once the
 * runs still using it end.
 */
export function discardQuickjs(): void {
  loading = undefined;
  memory = undefined;
}
