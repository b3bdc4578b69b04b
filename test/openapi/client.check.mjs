// `npm run test:openapi`: the OpenAPI document, as tools take it. Serves the built worker (what
// `npm start` serves) on a throwaway state directory, then:
//   1. lints GET /api/v1/openapi.json with Redocly's recommended rules: 0 errors;
//   2. generates client types from it with openapi-typescript (run through `npm exec` with its own
//      TypeScript 5: it needs the compiler API, which this project's TypeScript 7 lacks);
//   3. type-checks client.ts (openapi-fetch calls) against them;
//   4. runs those calls and checks the answers.
// Ends with the `N passed, N failed` line; exit code 1 on any failure.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildWorker } from "../../scripts/lib/build.mjs";
import { applyLocalMigrations, ensureDevVars, readDevVars, root, toolEnv } from "../../scripts/lib/local.mjs";
import { serveBuiltWorker } from "../../scripts/lib/serve.mjs";

const OPENAPI_TYPESCRIPT = "openapi-typescript@7.13.0";
const TYPESCRIPT_FOR_GENERATOR = "typescript@5.9.3";
const here = join(root, "test", "openapi");

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
      `  ✗ ${name}\n    ${String((err?.message ?? err) + (err?.cause ? ` (${err.cause.message ?? err.cause})` : ""))
        .split("\n")
        .slice(0, 30)
        .join("\n    ")}`,
    );
  }
}

/** Runs a command; throws with its output when it fails. */
function run(command, args, { cwd = root, env = toolEnv } = {}) {
  const r = spawnSync(command, args, { cwd, env, encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "pipe"] });
  const output = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.error || r.status !== 0)
    throw new Error(
      `${command} ${args.join(" ")} failed (exit ${r.status ?? r.error?.message}):\n${output.trim().split("\n").slice(-30).join("\n")}`,
    );
  return output;
}

const freePort = () =>
  new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

const work = mkdtempSync(join(tmpdir(), "edgeflow-openapi-"));
let server;
try {
  ensureDevVars("openapi");
  applyLocalMigrations(["--env", "local", "--persist-to", join(work, "state")], "openapi");
  const built = await buildWorker({ env: "local", outdir: join(work, "worker") });
  server = await serveBuiltWorker({ outdir: built.outdir, port: await freePort(), persistTo: join(work, "state") });
  console.log(`openapi: serving ${server.url}`);
  const docFile = join(work, "openapi.json");
  // Not kept alive: the client calls come half a minute later, by when workerd may have closed it.
  writeFileSync(docFile, await (await fetch(`${server.url}/openapi.json`, { headers: { connection: "close" } })).text());

  await step("redocly lint (recommended rules) finds 0 errors", async () => {
    const out = run(join(root, "node_modules", ".bin", "redocly"), ["lint", "--extends=recommended", "--format=summary", docFile], {
      env: { ...toolEnv, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    console.log(`    ${out.trim().split("\n").filter(Boolean).slice(-3).join("\n    ")}`);
  });

  const generated = join(here, "generated");
  await step(`${OPENAPI_TYPESCRIPT} generates the client types`, async () => {
    rmSync(generated, { recursive: true, force: true });
    mkdirSync(generated, { recursive: true });
    // From the temporary directory, so npm exec resolves the pinned packages, not this project's.
    run(
      "npm",
      [
        "exec",
        "--yes",
        `--package=${OPENAPI_TYPESCRIPT}`,
        `--package=${TYPESCRIPT_FOR_GENERATOR}`,
        "--",
        "openapi-typescript",
        docFile,
        "-o",
        join(generated, "schema.d.ts"),
      ],
      { cwd: work },
    );
  });

  await step("client.ts type-checks against the generated types (tsc)", async () => {
    run(join(root, "node_modules", ".bin", "tsc"), ["-p", join(here, "tsconfig.json")]);
  });

  const { runClientChecks } = await import("./client.ts");
  const token = readDevVars().ADMIN_API_KEY;
  await runClientChecks(server.url, token, step);
} catch (err) {
  results.push(false);
  console.log(`openapi: ${err?.stack ?? err}`);
} finally {
  await server?.dispose().catch(() => {});
  rmSync(work, { recursive: true, force: true });
}

const passed = results.filter(Boolean).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(results.length > 0 && passed === results.length ? 0 : 1);
