// Scripted answers of the OpenAI-compatible stand-in for the retriever nodes' prompts (server.mjs
// asks it first, with the request's messages); markers in the question choose them:
//   [queries A | B | C]  MultiQuery's prompt ("Original question: …") → "<questions>\nA\nB\nC\n</questions>";
//                        Reciprocal Rank Fusion's ("OUTPUT (N queries):" after "Generate multiple
//                        search queries related to: …") → "A\nB\nC"
//   [passage TEXT]       a HyDE prompt (ending "Passage:" or "Counter Argument:") → TEXT
//   [extract WORD]       LLMChainExtractor's prompt ("Extracted relevant parts:"): the context's
//                        sentences holding WORD (any case), else NO_OUTPUT
// Anything else: undefined (the stand-in's other behaviours answer).
const textOf = (content) =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((p) => p?.text ?? "").join("") : "";

export function retrieversAnswer(messages) {
  const users = (Array.isArray(messages) ? messages : []).filter((m) => m.role === "user").map((m) => textOf(m.content));
  const last = (users.at(-1) ?? "").trimEnd();
  const all = users.join("\n");
  const queries = /\[queries ([^\]]*)\]/
    .exec(all)?.[1]
    ?.split("|")
    .map((q) => q.trim());
  if (queries && last.includes("Original question:")) return `<questions>\n${queries.join("\n")}\n</questions>`;
  if (queries && /^OUTPUT \(\d+ queries\):$/.test(last) && all.includes("Generate multiple search queries related to:"))
    return queries.join("\n");
  const passage = /\[passage ([^\]]*)\]/.exec(last)?.[1];
  if (passage !== undefined && /(Passage|Counter Argument):$/.test(last)) return passage;
  const word = /\[extract ([^\]\s]+)\]/.exec(last)?.[1];
  if (word !== undefined && last.endsWith("Extracted relevant parts:")) {
    const context = /\n>>>\n([\s\S]*)\n>>>\nExtracted relevant parts:$/.exec(last)?.[1] ?? "";
    const hits = (context.match(/[^.!?]+[.!?]?/g) ?? []).map((s) => s.trim()).filter((s) => s.toLowerCase().includes(word.toLowerCase()));
    return hits.length ? hits.join(" ") : "NO_OUTPUT";
  }
  return undefined;
}
