// npm run check: no line of src/ longer than 140 characters (Biome formats to 140, but cannot break
// a long string literal or comment: those are split by hand).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const MAX = 140;
const files = execFileSync("git", ["ls-files", "src/*.ts", "src/**/*.ts"], { encoding: "utf8" }).split("\n").filter(Boolean);
const long = [];
for (const file of files) {
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if ([...line].length > MAX) long.push(`${file}:${i + 1} (${[...line].length})`);
    });
}
if (long.length) {
  console.error(`line-length: ${long.length} line(s) of src/ over ${MAX} characters:\n  ${long.join("\n  ")}`);
  process.exit(1);
}
console.log(`line-length: every line of src/ (${files.length} files) within ${MAX} characters`);
