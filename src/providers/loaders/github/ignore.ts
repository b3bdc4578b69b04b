// Flowise's ignorePath for the github loader: a JSON array of .gitignore-style patterns ("*.md",
// "docs/", "/build", "**/test/*.ts", "!keep.md"), matched by `ignore`, the library LangChain's
// GithubRepoLoader (which Flowise runs) uses for its ignorePaths.
import ignore from "ignore";
import { fail } from "../../../errors";

/** The patterns of an ignorePath input (JSON array text, or an array); 400 when it is neither. */
export function ignorePatterns(value: unknown): string[] {
  if (value === undefined || value === null || value === "") return [];
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      throw fail("INVALID_INPUT", `github ignorePath must be a JSON array of patterns, e.g. ["*.md", "docs/"]`);
    }
  }
  if (!Array.isArray(v) || !v.every((p) => typeof p === "string"))
    throw fail("INVALID_INPUT", `github ignorePath must be a JSON array of patterns, e.g. ["*.md", "docs/"]`);
  return v;
}

/** A predicate telling whether a file path (relative to the repository root) is ignored. */
export function ignoreMatcher(patterns: string[]): (path: string) => boolean {
  const rules = ignore().add(patterns);
  return (path) => {
    try {
      return rules.ignores(path);
    } catch {
      return true; // not a relative path ("../x", from an instance API the flow chose): no repository file
    }
  };
}
