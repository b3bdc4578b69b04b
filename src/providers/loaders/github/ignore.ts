// Flowise's ignorePath for the github loader: a JSON array of .gitignore-style patterns ("*.md",
// "docs/", "/build", "**/test/*.ts", "!keep.md"). A pattern without a slash matches a name at any
// depth; one with a slash is anchored at the repository root; a trailing slash matches directories
// (and so everything under them); a later "!pattern" takes a path back.
import { badRequest } from "../../../errors";

interface Rule {
  negate: boolean;
  dirOnly: boolean;
  regex: RegExp;
}

function globToRegex(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      // "**/" matches any number of directories, "**" anything.
      if (glob[i + 2] === "/") {
        out += "(?:.*/)?";
        i += 2;
      } else {
        out += ".*";
        i += 1;
      }
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return out;
}

function ruleOf(raw: string): Rule | undefined {
  let p = raw.trim();
  if (!p || p.startsWith("#")) return undefined;
  const negate = p.startsWith("!");
  if (negate) p = p.slice(1);
  const dirOnly = p.endsWith("/");
  p = p.replace(/\/+$/, "");
  const anchored = p.includes("/");
  p = p.replace(/^\/+/, "");
  // Matches the path itself or any directory above it (so "docs" and "docs/" cover docs/a/b.md).
  const body = globToRegex(p);
  const regex = new RegExp(`^${anchored ? "" : "(?:.*/)?"}${body}${dirOnly ? "/" : "(?:/|$)"}`);
  return { negate, dirOnly, regex };
}

/** The patterns of an ignorePath input (JSON array text, or an array); 400 when it is neither. */
export function ignorePatterns(value: unknown): string[] {
  if (value === undefined || value === null || value === "") return [];
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      throw badRequest(`github ignorePath must be a JSON array of patterns, e.g. ["*.md", "docs/"]`);
    }
  }
  if (!Array.isArray(v) || !v.every((p) => typeof p === "string")) throw badRequest(`github ignorePath must be a JSON array of patterns, e.g. ["*.md", "docs/"]`);
  return v;
}

/** A predicate telling whether a file path (relative to the repository root) is ignored. */
export function ignoreMatcher(patterns: string[]): (path: string) => boolean {
  const rules = patterns.map(ruleOf).filter((r): r is Rule => !!r);
  return (path) => {
    let ignored = false;
    for (const r of rules) if (r.regex.test(path)) ignored = !r.negate;
    return ignored;
  };
}
