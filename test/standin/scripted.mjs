// Scripted answers of the OpenAI-compatible stand-in for the data nodes, chosen by the prompt's
// last line (so one marker in the question serves both calls of a chain):
//   [sql: QUERY :sql]  …"SQLQuery:" → QUERY; …"Answer:" → "rows: <the SQLResult line>"
//   [js: CODE :js]     …"Output Code:" → CODE; …"Standalone Answer:" → "standalone: <the answer given>"
export function scriptedAnswer(last) {
  const text = last.trimEnd();
  const sql = /\[sql: ([\s\S]*?) :sql\]/.exec(last);
  if (sql && text.endsWith("SQLQuery:")) return sql[1];
  if (sql && text.endsWith("Answer:")) return `rows: ${/SQLResult: (.*)\nAnswer:$/.exec(text)?.[1] ?? "none"}`;
  const js = /\[js: ([\s\S]*?) :js\]/.exec(last);
  if (js && text.endsWith("Output Code:")) return js[1];
  if (js && text.endsWith("Standalone Answer:"))
    return `standalone: ${/You have an answer to the question: ([\s\S]*)\. Rephrase the answer/.exec(text)?.[1] ?? "none"}`;
  return undefined;
}
