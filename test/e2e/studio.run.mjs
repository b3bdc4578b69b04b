// The studio's browser steps alone (studio.e2e.mjs), for working on the studio: `node
// test/e2e/studio.run.mjs` starts the stand-in and `npm run dev`'s worker on a fresh state (port
// E2E_PORT, else a free one) and ends with the `N passed, N failed` line. `npm run test:e2e` runs
// them with the widget's.
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import { startStandin } from "../standin/server.mjs";
import { startEdgeflow } from "./servers.mjs";
import { VOICE_ARGS } from "./studio-voice.mjs";
import { STUDIO_VARS, checkStudio } from "./studio.e2e.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  ...VOICE_ARGS,
];

const results = [];
async function step(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push(true);
    console.log(`  ✓ ${name} (${Date.now() - t0} ms)`);
  } catch (err) {
    results.push(false);
    console.log(
      `  ✗ ${name} (${Date.now() - t0} ms)\n    ${String(err?.stack ?? err)
        .split("\n")
        .slice(0, 6)
        .join("\n    ")}`,
    );
  }
}

if (!existsSync(CHROMIUM)) {
  console.log(`Chromium not found at ${CHROMIUM} (install Debian's chromium, or set CHROMIUM_PATH)`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const standin = await startStandin();
const edgeflow = await startEdgeflow({ port: process.env.E2E_PORT ? Number(process.env.E2E_PORT) : undefined, vars: STUDIO_VARS });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const t0 = Date.now();
try {
  await checkStudio(browser, edgeflow, standin, step);
} finally {
  await browser.close();
  edgeflow.stop();
  await standin.close();
}
const passed = results.filter(Boolean).length;
console.log(`studio: ${Date.now() - t0} ms`);
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(results.length - passed ? 1 : 0);
