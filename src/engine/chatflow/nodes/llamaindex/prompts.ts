// LlamaIndex's default prompts (llamaindex 0.3, the version Flowise runs), word for word: what
// the model receives must match what Flowise sends, so a flow answers alike after the move.
// Templates use Flowise's placeholders: {context}, {query}, {existingAnswer}.

export const DEFAULT_TEXT_QA_PROMPT = `Context information is below.
---------------------
{context}
---------------------
Given the context information and not prior knowledge, answer the query.
Query: {query}
Answer:`;

export const DEFAULT_REFINE_PROMPT = `The original query is as follows: {query}
We have provided an existing answer: {existingAnswer}
We have the opportunity to refine the existing answer (only if needed) with some more context below.
------------
{context}
------------
Given the new context, refine the original answer to better answer the query. If the context isn't useful, return the original answer.
Refined Answer:`;

export const DEFAULT_TREE_SUMMARIZE_PROMPT = `Context information from multiple sources is below.
---------------------
{context}
---------------------
Given the information from multiple sources and not prior knowledge, answer the query.
Query: {query}
Answer:`;

/** The context chat engine's system message (none when nothing was retrieved). */
export const contextSystemPrompt = (context: string): string =>
  context ? `Context information is below.\n---------------------\n${context}\n---------------------` : "";

export type PromptVars = Partial<Record<"context" | "query" | "existingAnswer", string>>;

/**
 * Fills a synthesizer prompt in one pass: {context}, {query}, {existingAnswer} become their values
 * (missing ones empty); any other brace is left as written, and a value is never re-read as a placeholder.
 */
export function fillPrompt(template: string, vars: PromptVars): string {
  return template.replace(/\{(context|query|existingAnswer)\}/g, (_, name: keyof PromptVars) => vars[name] ?? "");
}

const EXAMPLE_TOOLS = {
  uber_10k: "Provides information about Uber financials for year 2021",
  lyft_10k: "Provides information about Lyft financials for year 2021",
};
const EXAMPLE_QUERY = "Compare and contrast the revenue growth and EBITDA of Uber and Lyft for year 2021";
const EXAMPLE_OUTPUT = [
  { subQuestion: "What is the revenue growth of Uber", toolName: "uber_10k" },
  { subQuestion: "What is the EBITDA of Uber", toolName: "uber_10k" },
  { subQuestion: "What is the revenue growth of Lyft", toolName: "lyft_10k" },
  { subQuestion: "What is the EBITDA of Lyft", toolName: "lyft_10k" },
];

/** Tools as the sub-question prompt lists them: {"name": "description", …}, indented by 4. */
export const toolsText = (tools: Array<{ name: string; description: string }>): string =>
  JSON.stringify(Object.fromEntries(tools.map((t) => [t.name, t.description])), null, 4);

/** LlamaIndex's sub-question prompt: one worked example, then the tools and the user's question. */
export const subQuestionPrompt = (tools: string, query: string): string =>
  `Given a user question, and a list of tools, output a list of relevant sub-questions that when ` +
  `composed can help answer the full user question:

# Example 1
<Tools>
\`\`\`json
${JSON.stringify(EXAMPLE_TOOLS, null, 4)}
\`\`\`

<User Question>
${EXAMPLE_QUERY}

<Output>
\`\`\`json
${JSON.stringify(EXAMPLE_OUTPUT, null, 4)}
\`\`\`

# Example 2
<Tools>
\`\`\`json
${tools}
\`\`\`

<User Question>
${query}

<Output>
`;
