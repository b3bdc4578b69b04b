// The CSV agent's prompts: Flowise's two (code, then a standalone answer), with JavaScript over an
// array of rows where Flowise has Python over a pandas dataframe (Workers have no Python runtime).
export const CODE_PROMPT =
  `You are working with an array of row objects in JavaScript. The name of the array is ` +
  `df: one object per row of a CSV file, keyed by column name.

The columns and data types of the rows are given below as a JSON object with keys showing column names and values showing the data types.
{dict}

I will ask question, and you will output the JavaScript code using df to answer my question. The code runs as the ` +
  `body of an async function: return the answer. Do not provide any explanations. Do not respond with anything except the code.

Security: Output ONLY plain JavaScript operations on the array (df). Do not use fetch, import, require or eval. ` +
  `The code runs in a sandbox without access to anything else.

Question: {question}
Output Code:`;

export const ANSWER_PROMPT =
  `You are given the question: {question}. You have an answer to the question: ` +
  `{answer}. Rephrase the answer into a standalone answer.
Standalone Answer:`;

/** {name} placeholders filled literally (a system message may hold braces of its own). */
export const fill = (template: string, values: Record<string, string>): string =>
  template.replace(/\{(\w+)\}/g, (m, k: string) => (Object.hasOwn(values, k) ? values[k] : m));
