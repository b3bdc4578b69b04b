// The QuickJS engine (quickjs-emscripten's RELEASE_SYNC build), loaded once per isolate. workerd
// cannot fetch or compile WebAssembly at run time, so the .wasm is imported as a compiled module
// (wrangler's CompiledWasm rule, see wrangler.toml) and handed to the variant (DESIGN.md).
import RELEASE_SYNC from "@jitl/quickjs-wasmfile-release-sync";
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import { type QuickJSWASMModule, newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten";

let loading: Promise<QuickJSWASMModule> | undefined;

/** The engine; the first call instantiates it, later calls share it. */
export function quickjs(): Promise<QuickJSWASMModule> {
  loading ??= newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule })).catch((err) => {
    loading = undefined; // a failed load is retried by the next call
    throw err;
  });
  return loading;
}

/**
 * Forgets the engine, so the next call instantiates a fresh one. Used when the WebAssembly instance
 * itself failed (a trap, a failed dispose): its memory can no longer be trusted.
 */
export function discardQuickjs(): void {
  loading = undefined;
}
