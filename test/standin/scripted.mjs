// Scripted answers of the OpenAI-compatible stand-in for the data nodes, chosen by the prompt's
// last line (so one marker in the question serves both calls of a chain):
//   [sql: QUERY :sql]  …"SQLQuery:" → QUERY; …"Answer:" → "rows: <the SQLResult line>"
//   [js: CODE :js]     …"Output Code:" → CODE; …"Standalone Answer:" → "standalone: <the answer given>"
//   [api: TEXT :api]   …"API url:" or …"json string:" (the GET/POST API chains' URL prompts) → TEXT
//   [dest NAME]        …"<< OUTPUT >>" (a router chain) → ```json {"destination": NAME, "next_inputs": {…: the input}}```
//   [xml NAME: INPUT]  in the XML agent's prompt → <tool>NAME</tool><tool_input>INPUT</tool_input>;
//                      [xml final: TEXT] → <final_answer>TEXT</final_answer>
//   [cypher NAME]      a prompt asking for Cypher → the statement CYPHER[NAME] (graphCypherQAChain: the
//                      question cannot carry Cypher, Flowise's guards refuse it); …"Helpful Answer:" →
//                      "graph: <the Information section>"
const CYPHER = {
  people: "```cypher\nMATCH (p:Person)-[:ACTED_IN]->(m:Movie) RETURN p.name AS name, m.title AS title LIMIT $topK\n```",
  plain: "MATCH (m:Movie) RETURN m.title AS title",
  path: "Here it is:\n```\nMATCH path = (p:Person)-[:ACTED_IN]->(m:Movie) RETURN path\n```",
  write: "MATCH (p:Person) SET p.name = 'x' RETURN p",
  bad: "MATCH (p:Person RETURN p",
};
export function scriptedAnswer(last) {
  const text = last.trimEnd();
  const cypher = /\[cypher (\w+)\]/.exec(last);
  if (cypher && text.endsWith("Helpful Answer:")) return `graph: ${/Information:\n([\s\S]*)\n\nQuestion:/.exec(text)?.[1] ?? "none"}`;
  if (cypher && /cypher/i.test(last.replace(cypher[0], "")) && CYPHER[cypher[1]]) return CYPHER[cypher[1]];
  const sql = /\[sql: ([\s\S]*?) :sql\]/.exec(last);
  if (sql && text.endsWith("SQLQuery:")) return sql[1];
  if (sql && text.endsWith("Answer:")) return `rows: ${/SQLResult: (.*)\nAnswer:$/.exec(text)?.[1] ?? "none"}`;
  const js = /\[js: ([\s\S]*?) :js\]/.exec(last);
  if (js && text.endsWith("Output Code:")) return js[1];
  if (js && text.endsWith("Standalone Answer:"))
    return `standalone: ${/You have an answer to the question: ([\s\S]*)\. Rephrase the answer/.exec(text)?.[1] ?? "none"}`;
  const api = /\[api: ([\s\S]*?) :api\]/.exec(last);
  if (api && (text.endsWith("API url:") || text.endsWith("json string:"))) return api[1];
  // A router chain's prompt (LangChain's, ending "<< OUTPUT >>"): the destination [dest NAME] names,
  // the << INPUT >> text as next_inputs (`input` or `query`, as its format instructions ask), fenced.
  const dest = /\[dest (\S+?)\]/.exec(last);
  if (dest && text.endsWith("<< OUTPUT >>")) {
    const input = /<< INPUT >>\n([\s\S]*)\n\n<< OUTPUT >>$/.exec(text)?.[1] ?? "";
    const key = text.includes('"next_inputs.query"') ? "query" : "input";
    return `\`\`\`json\n${JSON.stringify({ destination: dest[1], next_inputs: { [key]: input } })}\n\`\`\``;
  }
  // The XML agent's prompt (its <tool_input> instructions): [xml NAME: INPUT] asks for a tool, [xml final: TEXT] answers.
  const xml = /\[xml ([^\]:]+): ([^\]]*)\]/.exec(last);
  if (xml && last.includes("<tool></tool> and <tool_input></tool_input> tags"))
    return xml[1] === "final" ? `<final_answer>${xml[2]}</final_answer>` : `<tool>${xml[1]}</tool><tool_input>${xml[2]}</tool_input>`;
  return undefined;
}
