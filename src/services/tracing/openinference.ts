// OpenInference's span attributes (Arize, Phoenix and Opik read them; Flowise's LangChain
// instrumentation by @arizeai/openinference-instrumentation-langchain writes them): the span's kind
// (openinference.span.kind LLM, CHAIN, TOOL, RETRIEVER, AGENT), input.value / output.value, and per
// kind the model's llm.* (model, invocation parameters, token counts, flattened input and output
// messages), tool.*, retrieval.documents.*; every span carries session.id (the chatId).
import type { Span, Trace } from "./trace-types";

type Entries = Array<[string, unknown]>;

const JSON_MIME = "application/json";
const TEXT_MIME = "text/plain";

/** input.value / output.value with their mime types, as the instrumentation writes them. */
function io(which: "input" | "output", value: unknown): Entries {
  if (value === undefined || value === null) return [];
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

function documents(list: unknown): Entries {
  if (!Array.isArray(list)) return [];
  return list.flatMap(
    (d: { pageContent?: unknown; metadata?: unknown }, i): Entries => [
      [`retrieval.documents.${i}.document.content`, content(d.pageContent)],
      [`retrieval.documents.${i}.document.metadata`, d.metadata === undefined ? undefined : JSON.stringify(d.metadata)],
    ],
  );
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
      const agent = span.kind === "node" && span.attributes?.nodeName === "agentAgentflow";
      return [["openinference.span.kind", agent ? "AGENT" : "CHAIN"], ...session, ...io("input", span.input), ...io("output", span.output)];
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
