// ReAct replies for the OpenAI-compatible stand-in (server.mjs): a prompt whose question holds
// `[react NAME: INPUT]` (one or more, in order) gets, per step, a Thought, `Action: NAME` and
// `Action Input: INPUT`, followed by an Observation the model made up (which the agent must cut);
// once every step has its Observation in the scratchpad: `Final Answer: observed <last observation>`.
// `[react-noformat]` answers plain text (neither an Action nor a Final Answer).
const STEP = /\[react (\S+?): (.*?)\]/g;

export function reactAnswer(last) {
  if (last.includes("[react-noformat]")) return "Just a plain answer without the format.";
  const at = last.lastIndexOf("[react ");
  if (at < 0) return undefined;
  const question = last.slice(0, last.indexOf("]", at) + 1);
  const steps = [...question.matchAll(STEP)].map((m) => ({ name: m[1], input: m[2] }));
  const observations = [...last.slice(at).matchAll(/\nObservation: (.*)/g)].map((m) => m[1]);
  if (observations.length >= steps.length) {
    return `I now know the final answer\nFinal Answer: observed ${observations.at(-1) ?? "nothing"}`;
  }
  const step = steps[observations.length];
  return ` I should use ${step.name}.\nAction: ${step.name}\nAction Input: ${step.input}\nObservation: a result the model invented`;
}
