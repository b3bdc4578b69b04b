// npm run check: the shape of src/ — no line longer than 140 characters (Biome formats to 140, but
// cannot break a long string literal or comment: those are split by hand), and no file longer than
// 350 lines (300 in the run door, detached runs and executions, where the next engineer reads
// most): a file past that holds more than one job and is split by what it holds.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const MAX_LINE = 140;
const MAX_FILE_LINES = 350;
const STRICTER = [{ prefix: /^src\/(services\/runs|detached|services\/executions)\//, max: 300 }];

const files = execFileSync("git", ["ls-files", "src/*.ts", "src/**/*.ts"], { encoding: "utf8" }).split("\n").filter(Boolean);
const long = [];
const big = [];
for (const file of files) {
  const lines = readFileSync(file, "utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  lines.forEach((line, i) => {
    if ([...line].length > MAX_LINE) long.push(`${file}:${i + 1} (${[...line].length})`);
  });
  const max = STRICTER.find((s) => s.prefix.test(file))?.max ?? MAX_FILE_LINES;
  if (lines.length > max) big.push(`${file} (${lines.length} lines, at most ${max})`);
}
if (long.length) console.error(`source-shape: ${long.length} line(s) of src/ over ${MAX_LINE} characters:\n  ${long.join("\n  ")}`);
if (big.length) console.error(`source-shape: ${big.length} file(s) of src/ too long (split by what they hold):\n  ${big.join("\n  ")}`);
if (long.length || big.length) process.exit(1);
console.log(`source-shape: every line of src/ (${files.length} files) within ${MAX_LINE} characters, every file within its line limit`);
