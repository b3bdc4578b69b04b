// Proves that .dependency-cruiser.cjs catches what it is there for: it cruises a throwaway src/ tree
// (in a temp folder) holding one upward import, one skip past the services, V2 importing V1, a file
// cycle, a folder cycle, a deep import into the run door and into the executions, and a few allowed imports, and fails unless
// exactly the bad ones are reported.
// Run by `npm run check` after the cruise of the real src/.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const files = {
  "src/errors.ts": "export const e = 1;",
  "src/services/probe.ts": 'import { e } from "../errors";\nexport const s = e;',
  "src/lib/probe.ts": 'import { s } from "../services/probe";\nexport const l = s;', // upward
  "src/engine/index.ts": 'import { l } from "../lib/probe";\nexport const engine = l;', // allowed: down
  "src/routes/probe.ts": 'import { engine } from "../engine";\nimport { s } from "../services/probe";\nexport const r = [engine, s];', // skip (the services import is allowed)
  "src/engine/agentflow-v1/probe.ts": "export const v1 = 1;",
  "src/engine/agentflow/probe.ts": 'import { v1 } from "../agentflow-v1/probe";\nexport const v2 = v1;', // V2 importing V1
  "src/engine/core/a.ts": 'import { b } from "./b";\nexport const a = () => b;', // file cycle
  "src/engine/core/b.ts": 'import { a } from "./a";\nexport const b = () => a;',
  "src/providers/x/one.ts": 'import { two } from "../y/two";\nexport const one = two;', // folder cycle x ↔ y
  "src/providers/x/four.ts": "export const four = 4;",
  "src/providers/y/two.ts": "export const two = 2;",
  "src/providers/y/three.ts": 'import { four } from "../x/four";\nexport const three = four;',
  "src/services/runs/stage.ts": 'import { e } from "../../errors";\nexport const stage = e;',
  "src/services/runs/index.ts": 'import { stage } from "./stage";\nexport const runFlow = stage;',
  "src/services/door-user.ts":
    'import { runFlow } from "./runs";\nimport { stage } from "./runs/stage";\nexport const u = [runFlow, stage];', // deep
  "src/services/executions/lease.ts": 'import { e } from "../../errors";\nexport const lease = e;',
  "src/services/executions/index.ts": 'import { lease } from "./lease";\nexport const expire = lease;',
  "src/services/row-user.ts":
    'import { expire } from "./executions";\nimport { lease } from "./executions/lease";\nexport const x = [expire, lease];', // deep
};

const expected = [
  "no-up-from-foundation src/lib/probe.ts → src/services/probe.ts",
  "routes-through-services src/routes/probe.ts → src/engine/index.ts",
  "agentflow-not-v1 src/engine/agentflow/probe.ts → src/engine/agentflow-v1/probe.ts",
  "no-circular src/engine/core/a.ts ↔ src/engine/core/b.ts",
  "no-circular-folders src/providers/x ↔ src/providers/y",
  "run-door-closed src/services/door-user.ts → src/services/runs/stage.ts",
  "executions-door-closed src/services/row-user.ts → src/services/executions/lease.ts",
].sort();

/** A violation as one line; a cycle once, whichever of its members dependency-cruiser names first. */
function line(v) {
  if (!v.rule.name.startsWith("no-circular")) return `${v.rule.name} ${v.from} → ${v.to}`;
  const [a, b] = [v.from, v.to].sort();
  return `${v.rule.name} ${a} ↔ ${b}`;
}

const dir = mkdtempSync(join(tmpdir(), "layers-selftest-"));
try {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), `${text}\n`);
  }
  const cli = join(root, "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs");
  const run = spawnSync(process.execPath, [cli, "src", "--config", join(root, ".dependency-cruiser.cjs"), "--output-type", "json"], {
    cwd: dir,
    encoding: "utf8",
  });
  if (!run.stdout) throw new Error(`dependency-cruiser printed nothing: ${run.stderr}`);
  const found = [...new Set(JSON.parse(run.stdout).summary.violations.map(line))].sort();
  const missing = expected.filter((v) => !found.includes(v));
  const extra = found.filter((v) => !expected.includes(v));
  if (missing.length || extra.length) {
    console.error("layers self-test FAILED: .dependency-cruiser.cjs does not report what it should");
    for (const v of missing) console.error(`  not reported: ${v}`);
    for (const v of extra) console.error(`  unexpected:   ${v}`);
    process.exit(1);
  }
  console.log(
    `layers self-test: the rules catch an upward import, a skip, V2 → V1, a file cycle, a folder cycle and deep imports into the run door and the executions (${found.length} findings, as expected)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
