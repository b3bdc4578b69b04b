// The QuickJS engine compiled to WebAssembly, imported as a module (wrangler's CompiledWasm rule).
declare module "@jitl/quickjs-wasmfile-release-sync/wasm" {
  const module: WebAssembly.Module;
  export default module;
}
