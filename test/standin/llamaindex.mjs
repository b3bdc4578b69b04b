// [subquestions] in a LlamaIndex sub-question prompt (the OpenAI stand-in's chat completions):
// the answer LlamaIndex's question generator expects — a fenced JSON list with one sub-question
// per tool of the prompt's own <Tools> block ("<question> (<tool>)", the phrase removed), so a
// sub-question engine's run is deterministic. Any other message: undefined (the usual echo).
const PROMPT = /# Example 2\n<Tools>\n```json\n([\s\S]*?)\n```\n\n<User Question>\n([\s\S]*?)\n\n<Output>\n?$/;

export function subQuestionsAnswer(last) {
  if (!last.includes("[subquestions]")) return undefined;
  const m = PROMPT.exec(last);
  if (!m) return undefined;
  const question = m[2].replace("[subquestions]", "").trim();
  const list = Object.keys(JSON.parse(m[1])).map((toolName) => ({ subQuestion: `${question} (${toolName})`, toolName }));
  return `\`\`\`json\n${JSON.stringify(list, null, 4)}\n\`\`\``;
}
