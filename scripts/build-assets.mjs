// `node scripts/build-assets.mjs`: builds dist/assets (see scripts/lib/assets.mjs).
import { buildAssets } from "./lib/assets.mjs";

try {
  console.log(`assets: ${await buildAssets()}`);
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
