// The worker's static assets (wrangler.toml [assets], binding ASSETS), built into dist/assets from
// installed packages before anything serves or bundles the worker. They are files the worker
// reads or serves but that would weigh on its bundle (which Cloudflare limits; assets are not
// counted):
//   api-reference/scalar.js       Scalar's standalone API reference, served at /api/v1/docs/scalar.js
//                                 so /api/v1/docs works without network;
//   tiktoken/<encoding>.json      js-tiktoken's BPE ranks (~735 KB gzip), read by tokenTextSplitter;
//   catalogue/, templates/        the studio's node catalogue and marketplace templates (catalogue.mjs, templates.mjs).
// Each file is written only when it is missing or its source changed, so this is cheap to call
// from every entry point (dev, start, test, check, deploy).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { root } from "./local.mjs";

export const ASSETS_DIR = join(root, "dist", "assets");
export const TIKTOKEN_ENCODINGS = ["gpt2", "cl100k_base"];

const require = createRequire(join(root, "package.json"));

function resolveInstalled(specifier) {
  try {
    return require.resolve(specifier);
  } catch {
    throw new Error(`assets: ${specifier} is not installed; run \`npm install\` first.`);
  }
}

/** Writes `target` from `make()` unless it is newer than `source` already. */
function refresh(target, source, make) {
  if (existsSync(target) && statSync(target).mtimeMs >= statSync(source).mtimeMs) return false;
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, make());
  return true;
}

export async function buildAssets() {
  // The package's main module is dist/index.js; the standalone build sits beside it.
  const scalar = join(dirname(resolveInstalled("@scalar/api-reference")), "browser", "standalone.js");
  if (!existsSync(scalar)) throw new Error(`assets: ${scalar} is missing (has @scalar/api-reference changed its layout?)`);
  refresh(join(ASSETS_DIR, "api-reference", "scalar.js"), scalar, () => readFileSync(scalar));

  for (const encoding of TIKTOKEN_ENCODINGS) {
    const source = resolveInstalled(`js-tiktoken/ranks/${encoding}`);
    const target = join(ASSETS_DIR, "tiktoken", `${encoding}.json`);
    if (existsSync(target) && statSync(target).mtimeMs >= statSync(source).mtimeMs) continue;
    const ranks = (await import(`js-tiktoken/ranks/${encoding}`)).default;
    refresh(target, source, () => JSON.stringify(ranks));
  }
  (await import("./catalogue.mjs")).buildCatalogue(root, ASSETS_DIR); // the studio's node catalogue
  (await import("./templates.mjs")).buildTemplates(root, ASSETS_DIR); // the marketplace's templates, checked against it
  return ASSETS_DIR;
}
