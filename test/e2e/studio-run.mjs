// Runs only the studio's browser steps (studio.e2e.mjs) against a fresh `npm start` on a free port
// (or E2E_PORT): `node test/e2e/studio-run.mjs`. The full browser suite is `npm run test:e2e`.
import { chromium } from "playwright-core";
import { checkStudio } from "./studio.e2e.mjs";
import { startEdgeflow } from "./servers.mjs";
import { startStandin } from "../standin/server.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"];

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
      `  ✗ ${name}\n    ${String(err?.stack ?? err)
        .split("\n")
        .slice(0, 8)
        .join("\n    ")}`,
    );
  }
}

const standin = await startStandin();
const server = await startEdgeflow({ script: "scripts/start.mjs" });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
try {
  await checkStudio(browser, server.url, step, { adminKey: server.adminKey, standinUrl: standin.url });
} finally {
  await browser.close();
  server.stop();
  await standin.close?.();
}
const failed = results.filter((ok) => !ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
