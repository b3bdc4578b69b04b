// OpenInference's span attributes (Arize, Phoenix and Opik read them; Flowise's LangChain
// instrumentation by @arizeai/openinference-instrumentation-langchain writes them): the span's kind
// (openinference.span.kind LLM, CHAIN, TOOL, RETRIEVER, AGENT), input.value / output.value, and per
// kind the model's llm.* (model, invocation parameters, token counts, flattened input and output
// messages), tool.*, retrieval.documents.*; every span carries session.id (the chatId).
import type { Span, Trace } from "./trace-types";

type Entries = Array<[string, unknown]>;

const JSON_MIME = "application/json";
const TEXT_MIME = "text/plain";

/**
 * input.value / output.value with their mime types, as the instrumentation writes them: a string, or an
 * object of one string (a chain's `{question}`, an agent's `{input}`), as text; anything else as JSON.
 */
function io(which: "input" | "output", value: unknown): Entries {
  if (value === undefined || value === null) return [];
  const only = typeof value === "object" && !Array.isArray(value) ? Object.values(value) : [];
  if (only.length === 1 && typeof only[0] === "string") value = only[0];
  const text = typeof value === "string";
  return [
    [`${which}.value`, text ? value : JSON.stringify(value)],
    [`${which}.mime_type`, text ? TEXT_MIME : JSON_MIME],
  ];
}

const content = (v: unknown) => (v === undefined || v === null || typeof v === "string" ? v : JSON.stringify(v));

/** llm.input_messages.{i}.message.role|content (and tool calls), flattened. */
function messages(prefix: string, list: unknown): Entries {
  if (!Array.isArray(list))
    return list === undefined
      ? []
      : [
          [`${prefix}.0.message.role`, "assistant"],
          [`${prefix}.0.message.content`, content(list)],
        ];
  return list.flatMap((m: { role?: string; content?: unknown; tool_calls?: Array<{ name?: string; args?: unknown }> }, i) => [
    [`${prefix}.${i}.message.role`, m.role ?? "user"],
    [`${prefix}.${i}.message.content`, content(m.content)],
    ...(m.tool_calls ?? []).flatMap(
      (c, j): Entries => [
        [`${prefix}.${i}.message.tool_calls.${j}.tool_call.function.name`, c.name],
        [`${prefix}.${i}.message.tool_calls.${j}.tool_call.function.arguments`, content(c.args ?? {})],
      ],
    ),
  ]);
}

type Doc = { id?: unknown; pageContent?: unknown; metadata?: Record<string, unknown> };

// A document's relevance where a retriever wrote it: Cohere and the other rerankers (relevance_score), the
// reciprocal rank fusion retriever (relevancy_score); a plain vector store search gives none.
const scoreOf = (d: Doc) => [d.metadata?.relevance_score, d.metadata?.relevancy_score].find((s) => typeof s === "number");

/** retrieval.documents.{i}.document.id|content|metadata|score, flattened. */
function documents(list: unknown): Entries {
  if (!Array.isArray(list)) return [];
  return list.flatMap((d: Doc, i): Entries => {
    const at = `retrieval.documents.${i}.document`;
    const score = scoreOf(d);
    return [
      [`${at}.id`, typeof d.id === "string" || typeof d.id === "number" ? d.id : undefined],
      [`${at}.content`, content(d.pageContent)],
      [`${at}.metadata`, d.metadata === undefined ? undefined : JSON.stringify(d.metadata)],
      [`${at}.score`, score],
    ];
  });
}

/** A span's OpenInference attributes. */
export function openInferenceAttributes(trace: Trace, span: Span): Entries {
  const session: Entries = [["session.id", trace.sessionId]];
  switch (span.kind) {
    case "generation":
      return [
        ["openinference.span.kind", "LLM"],
        ...session,
        ...io("input", span.input),
        ...io("output", span.output),
        ["llm.model_name", span.model],
        ["llm.provider", span.provider],
        ["llm.invocation_parameters", span.parameters && JSON.stringify(span.parameters)],
        ["llm.token_count.prompt", span.usage?.input],
        ["llm.token_count.completion", span.usage?.output],
        ["llm.token_count.total", span.usage?.total],
        ...messages("llm.input_messages", span.input),
        ...messages("llm.output_messages", span.output),
      ];
    case "tool":
      return [
        ["openinference.span.kind", "TOOL"],
        ...session,
        ...io("input", span.input),
        ...io("output", span.output),
        ["tool.name", span.name],
        ["tool.parameters", span.input === undefined ? undefined : JSON.stringify(span.input)],
      ];
    case "retriever":
      return [["openinference.span.kind", "RETRIEVER"], ...session, ...io("input", span.input), ...documents(span.output)];
    default: {
      // An Agentflow V2 Agent node, or a chatflow agent's loop (a LangChain run of type "agent").
      const agent = (span.kind === "node" && span.attributes?.nodeName === "agentAgentflow") || span.attributes?.runType === "agent";
      return [
        ["openinference.span.kind", agent ? "AGENT" : "CHAIN"],
        ...session,
        ...io("input", span.input),
        ...io("output", span.output),
        ...(agent ? ([["agent.name", span.name]] as Entries) : []),
      ];
    }
  }
}

/** The run's root span: a CHAIN from the question to the answer. */
export const openInferenceRoot = (trace: Trace): Entries => [
  ["openinference.span.kind", "CHAIN"],
  ["session.id", trace.sessionId],
  ...io("input", trace.input),
  ...io("output", trace.output),
  ["metadata", JSON.stringify(trace.metadata)],
];
