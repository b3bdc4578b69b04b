// A chat completions request as a flow run: the last user message is the question, earlier user and
// assistant turns the history, system/developer messages the flow's system message (where its
// apiConfig lets one be overridden); `user` → sessionId, metadata.chatId → chatId. Fields that would
// change the answer's meaning and that no flow honours are a 400 naming them.
import type { ChatCompletionBody } from "../../schemas/openai";
import { invalidValue, unsupportedParameter } from "./errors";
import { harmlessToolChoice, hasStructuredOutput, metadataIds, resumeOf, samplingOverrides, textOf } from "./request-common";
import { type FlowRunInput, type FlowTurn, type RunnableFlow, isAgentflow } from "./run-flow";

const TEXT_PARTS = ["text"] as const;

export interface ChatRun {
  input: FlowRunInput;
  /** Every text the flow was sent (for counting prompt tokens where no model reported them). */
  promptTexts: string[];
  /** response_format asks for JSON: the answer is the flow's structured output. */
  wantsJson: boolean;
}

/** The 400s that need no flow: tools, n > 1, logprobs, audio, web search, tool messages. */
export function checkChatRequest(body: ChatCompletionBody): void {
  if (body.tools?.length) throw unsupportedParameter("tools", "tools are not supported: a flow uses the tools it was built with");
  if (body.functions?.length)
    throw unsupportedParameter("functions", "functions are not supported: a flow uses the tools it was built with");
  if (!harmlessToolChoice(body.tool_choice))
    throw unsupportedParameter("tool_choice", "tool_choice is not supported: a flow uses the tools it was built with");
  if (!harmlessToolChoice(body.function_call))
    throw unsupportedParameter("function_call", "function_call is not supported: a flow uses the tools it was built with");
  if (body.n != null && body.n > 1) throw unsupportedParameter("n", "n > 1 is not supported: a flow run gives one answer");
  if (body.logprobs)
    throw unsupportedParameter("logprobs", "logprobs are not supported: a flow does not expose its models' token probabilities");
  if (body.top_logprobs)
    throw unsupportedParameter("top_logprobs", "top_logprobs are not supported: a flow does not expose its models' token probabilities");
  if (body.audio != null) throw unsupportedParameter("audio", "audio output is not supported: a flow answers text");
  if (body.modalities?.some((m) => m !== "text"))
    throw unsupportedParameter("modalities", "modalities other than text are not supported: a flow answers text");
  if (body.web_search_options != null)
    throw unsupportedParameter("web_search_options", "web_search_options is not supported: a flow uses the tools it was built with");
  const last = body.messages.length - 1;
  body.messages.forEach((m, i) => {
    if (m.role === "tool" || m.role === "function")
      throw unsupportedParameter(
        `messages[${i}].role`,
        `Messages of role '${m.role}' are not supported: a flow takes no tool results from the client`,
      );
    if (m.role === "assistant" && (m.tool_calls != null || m.function_call != null))
      throw unsupportedParameter(
        `messages[${i}].tool_calls`,
        "Assistant tool calls are not supported: a flow takes no tool results from the client",
      );
  });
  if (body.messages[last].role !== "user")
    throw invalidValue("messages", `The last message must be the user's (the flow's question), not '${body.messages[last].role}'`);
}

/** The run a checked request asks of `flow` (400 for a response_format it has no parser for, or a resume of a chatflow). */
export function chatRunOf(body: ChatCompletionBody, flow: RunnableFlow): ChatRun {
  const format = body.response_format?.type ?? "text";
  const wantsJson = format !== "text";
  if (wantsJson && !hasStructuredOutput(flow.flowData)) {
    throw unsupportedParameter(
      "response_format",
      `response_format '${format}' needs a flow with a structured output (an output parser, or an LLM/Agent node's ` +
        `structured output); this one answers text`,
    );
  }
  const system: string[] = [];
  const turns: FlowTurn[] = [];
  body.messages.forEach((m, i) => {
    const text = textOf(m.content, `messages[${i}].content`, TEXT_PARTS);
    if (m.role === "system" || m.role === "developer") system.push(text);
    else if (m.role === "user") turns.push({ role: "userMessage", content: text });
    else if (text) turns.push({ role: "apiMessage", content: text }); // an assistant turn
  });
  const question = turns.pop()!.content; // checkChatRequest made sure the last message is the user's
  const ids = metadataIds(body.metadata);
  if (ids.executionId && !isAgentflow(flow))
    throw invalidValue("metadata.executionId", "metadata.executionId resumes a paused agentflow run; this flow is a chatflow");
  const systemText = system.filter(Boolean).join("\n\n");
  const input: FlowRunInput = {
    question,
    history: turns,
    chatId: ids.chatId,
    sessionId: body.user ?? undefined,
    overrides: samplingOverrides(
      { temperature: body.temperature, top_p: body.top_p, maxTokens: body.max_completion_tokens ?? body.max_tokens },
      systemText,
    ),
    ...(ids.executionId ? { resume: resumeOf(ids.executionId, question) } : {}),
  };
  return { input, wantsJson, promptTexts: [systemText, ...turns.map((t) => t.content), question] };
}
