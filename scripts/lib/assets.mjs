// The worker's static assets (wrangler.toml [assets], binding ASSETS), built into dist/assets
// before anything serves or bundles the worker (dev, start, test, check, deploy). Assets do not
// count toward the bundle Cloudflare limits. Two kinds:
//   - the studio (scripts/lib/studio.mjs): Flowise's web UI, served by the asset layer at `/`;
//   - the worker's own files, under _edgeflow/ (a path the worker owns: wrangler.toml's
//     run_worker_first, so they are never served at a URL of their own), read through ASSETS:
//       _edgeflow/api-reference/scalar.js   Scalar's standalone API reference, served at
//                                           /api/v1/docs/scalar.js so /api/v1/docs works without network;
//       _edgeflow/tiktoken/<encoding>.json  js-tiktoken's BPE ranks (~735 KB gzip), read by tokenTextSplitter;
//       _edgeflow/catalogue/                the studio's node catalogue (scripts/lib/catalogue.mjs);
//       _edgeflow/templates/                the marketplace's templates, checked against it (scripts/lib/templates.mjs).
// Each file is written only when it is missing or its source changed, so this is cheap to call
// from every entry point.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { root } from "./local.mjs";
import { buildStudio } from "./studio.mjs";

export const ASSETS_DIR = join(root, "dist", "assets");
/** The worker's own files (src/lib/assets.ts reads them under this folder). */
export const WORKER_ASSETS = "_edgeflow";
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
  buildStudio(ASSETS_DIR, { keep: WORKER_ASSETS, stampFile: join(root, "dist", "studio.stamp") });
  const own = join(ASSETS_DIR, WORKER_ASSETS);

  // The package's main module is dist/index.js; the standalone build sits beside it.
  const scalar = join(dirname(resolveInstalled("@scalar/api-reference")), "browser", "standalone.js");
  if (!existsSync(scalar)) throw new Error(`assets: ${scalar} is missing (has @scalar/api-reference changed its layout?)`);
  refresh(join(own, "api-reference", "scalar.js"), scalar, () => readFileSync(scalar));

  for (const encoding of TIKTOKEN_ENCODINGS) {
    const source = resolveInstalled(`js-tiktoken/ranks/${encoding}`);
    const target = join(own, "tiktoken", `${encoding}.json`);
    if (existsSync(target) && statSync(target).mtimeMs >= statSync(source).mtimeMs) continue;
    const ranks = (await import(`js-tiktoken/ranks/${encoding}`)).default;
    refresh(target, source, () => JSON.stringify(ranks));
  }
  (await import("./catalogue.mjs")).buildCatalogue(root, own); // the studio's node catalogue
  (await import("./templates.mjs")).buildTemplates(root, own); // the marketplace's templates, checked against it
  return ASSETS_DIR;
}
