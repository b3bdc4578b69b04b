// `node scripts/build-wasm.mjs`: assembles src/providers/vectorstores/wasm/*.wat into the .wasm
// files next to them (committed, so building the worker needs no assembler). Uses wabt's
// JavaScript build, which is not a dependency of the project (only this script needs it):
//   npm install --prefix /tmp/wabt wabt@1.0.39
//   WABT=/tmp/wabt/node_modules/wabt/index.js node scripts/build-wasm.mjs
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "./lib/local.mjs";

const wabt = await (await import(process.env.WABT ?? "wabt")).default();
const dirs = [join(root, "src", "providers", "vectorstores", "wasm")];
for (const dir of dirs) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".wat"))) {
    const module = wabt.parseWat(file, readFileSync(join(dir, file), "utf8"), { simd: true });
    module.validate();
    const { buffer } = module.toBinary({});
    writeFileSync(join(dir, file.replace(/\.wat$/, ".wasm")), buffer);
    console.log(`build-wasm: ${file} → ${buffer.length} bytes`);
  }
}
