// A Responses API request as a flow run: `input` (a string, or messages whose last is the user's
// question) and `instructions` as the flow's system message where its apiConfig allows; a
// previous_response_id continues that response's chat (and answers its pause, when it paused).
import type { ResponseBody } from "../../schemas/openai";
import { invalidValue, unsupportedParameter } from "./errors";
import { harmlessToolChoice, hasStructuredOutput, metadataIds, resumeOf, samplingOverrides, textOf } from "./request-common";
import type { StoredResponse } from "./responses-store";
import { type FlowRunInput, type FlowTurn, type RunnableFlow, isAgentflow } from "./run-flow";

const TEXT_PARTS = ["input_text", "output_text", "text"] as const;

export interface ResponseRun {
  input: FlowRunInput;
  promptTexts: string[];
  wantsJson: boolean;
  /** Echoed on the response as OpenAI does. */
  echo: {
    instructions: string | null;
    previous_response_id: string | null;
    store: boolean;
    temperature: number | null;
    top_p: number | null;
    max_output_tokens: number | null;
    user: string | null;
    text: { format: { type: string } & Record<string, unknown> };
    metadata: Record<string, string>;
  };
}

/** The 400s that need no flow. */
export function checkResponseRequest(body: ResponseBody): void {
  if (body.tools?.length) throw unsupportedParameter("tools", "tools are not supported: a flow uses the tools it was built with");
  if (!harmlessToolChoice(body.tool_choice))
    throw unsupportedParameter("tool_choice", "tool_choice is not supported: a flow uses the tools it was built with");
  if (body.background)
    throw unsupportedParameter("background", "background responses are not supported: ask with stream: true for a long run");
  if (body.conversation != null)
    throw unsupportedParameter(
      "conversation",
      "conversation is not supported: continue a chat with previous_response_id (or metadata.chatId)",
    );
  if (body.prompt != null) throw unsupportedParameter("prompt", "Prompt templates are not supported: the flow holds its own prompts");
  if (body.top_logprobs)
    throw unsupportedParameter("top_logprobs", "top_logprobs are not supported: a flow does not expose its models' token probabilities");
  if (typeof body.input !== "string") {
    body.input.forEach((item, i) => {
      if (item.type !== undefined && item.type !== "message")
        throw unsupportedParameter(`input[${i}].type`, `Input items of type '${item.type}' are not supported: a flow takes messages`);
      if (item.role === undefined) throw invalidValue(`input[${i}].role`, "An input message needs a role");
    });
    const last = body.input.at(-1)!;
    if (last.role !== "user")
      throw invalidValue("input", `The last input message must be the user's (the flow's question), not '${last.role}'`);
  }
}

/** Request metadata echoed on the response: OpenAI keeps string values only. */
const stringValues = (metadata: Record<string, unknown> | null | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(metadata ?? {}).filter(([, v]) => typeof v === "string")) as Record<string, string>;

export function responseRunOf(body: ResponseBody, flow: RunnableFlow, previous?: StoredResponse): ResponseRun {
  const format = body.text?.format ?? { type: "text" };
  const wantsJson = format.type !== "text";
  if (wantsJson && !hasStructuredOutput(flow.flowData)) {
    throw unsupportedParameter(
      "text.format",
      `text.format '${format.type}' needs a flow with a structured output (an output parser, or an LLM/Agent ` +
        `node's structured output); this one answers text`,
    );
  }
  const system: string[] = body.instructions ? [body.instructions] : [];
  const turns: FlowTurn[] = [];
  if (typeof body.input === "string") {
    turns.push({ role: "userMessage", content: body.input });
  } else {
    body.input.forEach((item, i) => {
      const text = textOf(item.content, `input[${i}].content`, TEXT_PARTS);
      if (item.role === "system" || item.role === "developer") system.push(text);
      else if (item.role === "user") turns.push({ role: "userMessage", content: text });
      else if (text) turns.push({ role: "apiMessage", content: text });
    });
  }
  const question = turns.pop()!.content;

  const ids = metadataIds(body.metadata);
  if (previous) {
    if (previous.chatflowid !== flow.id)
      throw invalidValue("previous_response_id", `Response ${previous.id} was answered by another model (flow ${previous.chatflowid})`);
    if (ids.chatId && ids.chatId !== previous.chatId)
      throw invalidValue("metadata.chatId", `metadata.chatId differs from the chat of previous_response_id (${previous.chatId})`);
  }
  // A previous response that paused is answered by this one, unless the request names another run.
  const pausedBefore =
    previous?.executionId && (JSON.parse(previous.response) as { metadata?: { paused?: string } }).metadata?.paused === "true";
  const executionId = ids.executionId ?? (pausedBefore ? previous.executionId! : undefined);
  if (ids.executionId && !isAgentflow(flow))
    throw invalidValue("metadata.executionId", "metadata.executionId resumes a paused agentflow run; this flow is a chatflow");

  const systemText = system.filter(Boolean).join("\n\n");
  const input: FlowRunInput = {
    question,
    history: turns,
    chatId: previous?.chatId ?? ids.chatId,
    sessionId: previous?.sessionId ?? body.user ?? undefined,
    overrides: samplingOverrides({ temperature: body.temperature, top_p: body.top_p, maxTokens: body.max_output_tokens }, systemText),
    ...(executionId ? { resume: resumeOf(executionId, question) } : {}),
  };
  return {
    input,
    wantsJson,
    promptTexts: [systemText, ...turns.map((t) => t.content), question],
    echo: {
      instructions: body.instructions ?? null,
      previous_response_id: body.previous_response_id ?? null,
      store: body.store ?? true,
      temperature: body.temperature ?? null,
      top_p: body.top_p ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      user: body.user ?? null,
      text: { format: format as ResponseRun["echo"]["text"]["format"] },
      metadata: stringValues(body.metadata),
    },
  };
}
