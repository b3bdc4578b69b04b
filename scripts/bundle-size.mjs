// `node scripts/bundle-size.mjs` (part of `npm run check`): bundles the deployment with `wrangler
// deploy --dry-run --outdir dist/deploy`, so a bundling error fails the check, and prints the
// upload's gzip size — the figure Cloudflare limits (3 MiB on the Workers free plan, which fails
// the check; the project's own budget is 1.5 MiB, which warns).
import { join } from "node:path";
import { buildWorker, parseSizeLine } from "./lib/build.mjs";
import { root } from "./lib/local.mjs";

const LIMIT_KIB = 3 * 1024;
const BUDGET_KIB = 1.5 * 1024;

try {
  const built = await buildWorker({ env: "", outdir: join(root, "dist", "deploy") });
  const size = parseSizeLine(built.sizeLine);
  if (!size) throw new Error(`wrangler printed no "Total Upload" line to read the size from`);
  const mib = (kib) => (kib / 1024).toFixed(2);
  console.log(
    `bundle: ${size.gzipKiB.toFixed(0)} KiB gzip (${mib(size.gzipKiB)} MiB; ${mib(size.totalKiB)} MiB uncompressed; modules ${built.modules.join(", ")})`,
  );
  if (size.gzipKiB > LIMIT_KIB) {
    console.error(`bundle: over the Workers free plan's ${mib(LIMIT_KIB)} MiB`);
    process.exit(1);
  }
  if (size.gzipKiB > BUDGET_KIB) console.warn(`bundle: WARNING over the project's ${mib(BUDGET_KIB)} MiB budget (README, Bundle size)`);
} catch (err) {
  console.error(`bundle: ${err.message}`);
  process.exit(1);
}
