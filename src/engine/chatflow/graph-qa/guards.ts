// The guards Flowise's graphCypherQAChain puts around LangChain's chain (always on): a question over
// 2000 characters or one that looks like prompt or Cypher injection is answered with a refusal
// instead of reaching the model; the question is normalised (NFKC, control characters, comments and
// semicolons out, whitespace collapsed); the Cypher the model writes must not write (CREATE, MERGE,
// DELETE, SET, REMOVE, DROP, CALL, LOAD CSV, FOREACH outside string literals); at most 100 records
// are given on.

export const MAX_INPUT_LENGTH = 2000;
export const MAX_RESULTS = 100;

export const TOO_LONG = `Input rejected: exceeds maximum allowed length of ${MAX_INPUT_LENGTH} characters.`;
export const INJECTION = "Input rejected: potential Cypher injection or prompt manipulation detected.";
export const WRITE_REFUSED =
  "Generated Cypher query contains a write operation which is not allowed. This node only supports read-only queries for security.";

const WRITES = [
  /\bCREATE\b/i,
  /\bMERGE\b/i,
  /\bDELETE\b/i,
  /\bDETACH\s+DELETE\b/i,
  /\bSET\b/i,
  /\bREMOVE\b/i,
  /\bDROP\b/i,
  /\bCALL\b/i,
  /\bLOAD\s+CSV\b/i,
  /\bFOREACH\b/i,
];

/** Whether the Cypher writes (string literals aside). */
export function writesData(query: string): boolean {
  const stripped = query.replace(/'[^']*'/g, '""').replace(/"[^"]*"/g, '""');
  return WRITES.some((p) => p.test(stripped));
}

export function sanitizeInput(input: string): string {
  return input
    .normalize("NFKC")
    .replace(/[\x00-\x08\x0B-\x1F\x7F]/g, "")
    .replace(/\/\/.*$/gm, "")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/;/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_INPUT_LENGTH);
}

const INJECTIONS = [
  /ignore\s+(previous|all|above|prior)\s+(instructions?|prompts?|rules?)/i,
  /disregard\s+(the\s+)?(above|previous|prior|system)/i,
  /override\s+(the\s+)?(system|prompt|instructions?)/i,
  /forget\s+(your|the|all)\s+(instructions?|prompts?|rules?)/i,
  /new\s+(instructions?|prompts?|system|rules?)\s*:/i,
  /you\s+are\s+now/i,
  /act\s+as\s+(a\s+)?(?!user)/i,
  /roleplay\s+as/i,
  /pretend\s+(to\s+be|you\s+are)/i,
  /;\s*(?:MATCH|CREATE|MERGE|DELETE|DETACH|SET|REMOVE|DROP|CALL|LOAD|FOREACH)/i,
  /\}\s*\)\s*(?:MATCH|CREATE|MERGE|DELETE|RETURN)/i,
  /DETACH\s+DELETE/i,
  /CALL\s+dbms\./i,
  /CALL\s+db\./i,
  /CALL\s+apoc\./i,
  /LOAD\s+CSV/i,
  /DROP\s+(?:INDEX|CONSTRAINT|DATABASE)/i,
  /CREATE\s+(?:INDEX|CONSTRAINT|DATABASE)/i,
  /\/\/.*(?:MATCH|CREATE|MERGE|DELETE)/i,
  /;\s*;/,
  /[\u2018\u2019\u201C\u201D\uFF07\uFF02]/,
  /\\u[0-9a-f]{4}/i,
  /\\x[0-9a-f]{2}/i,
];

const KEYWORDS = ["match", "create", "merge", "delete", "detach", "set", "remove", "return", "where", "with"];

/** Flowise's heuristics: injection phrases, more than 5 special characters, 3+ Cypher keywords anywhere in the text. */
export function looksLikeInjection(input: string): boolean {
  if (INJECTIONS.some((p) => p.test(input))) return true;
  if ((input.match(/[{}()[\];|&$`\\]/g) ?? []).length > 5) return true;
  const lower = input.toLowerCase();
  return KEYWORDS.filter((k) => lower.includes(k)).length >= 3;
}
