// Variable resolution (AGENTFLOW.md §2) and TipTap HTML → text, on their own.
import { describe, expect, it } from "vitest";
import { htmlToMarkdown, plainText } from "../../src/engine/agentflow/html";
import { type ResolveScope, resolveString } from "../../src/engine/agentflow/resolve";
import { fillOutputTemplates, updateFlowState } from "../../src/engine/agentflow/state";
import type { ExecutedData } from "../../src/engine/agentflow/types";

const entry = (nodeId: string, output: Record<string, unknown>): ExecutedData => ({
  nodeId,
  nodeLabel: nodeId,
  data: { id: nodeId, name: "x", output },
  previousNodeIds: [],
  status: "FINISHED",
});

function scope(over: Partial<ResolveScope> = {}): ResolveScope {
  return {
    question: "What time is it?",
    fileText: "",
    form: { name: "Ada", tags: ["a", "b"], nested: { city: "Turin" } },
    flow: {
      chatflowId: "f1",
      chatflowid: "f1",
      chatId: "c1",
      sessionId: "s1",
      apiMessageId: "m1",
      runtimeChatHistoryLength: 3,
      state: { next: "SOFTWARE", list: [1, 2], empty: "" },
    },
    vars: { apiBase: "https://api.example.com" },
    chatHistory: [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ],
    executedData: [
      entry("llmAgentflow_0", { content: "first", subject: "Hello", count: 3, ok: true, items: [{ a: 1 }] }),
      entry("httpAgentflow_0", { http: { data: { items: [1, 2] }, status: 200 } }),
      entry("llmAgentflow_0", { content: "latest", subject: "Newer", count: 4 }),
    ],
    loopCount: 2,
    now: () => Date.parse("2026-11-20T10:00:00.000Z"),
    ...over,
  };
}

describe("references", () => {
  const cases: Array<[string, unknown]> = [
    ["{{ question }}", "What time is it?"],
    ["{{question}} and {{ question }}", "What time is it? and What time is it?"],
    ["Hi {{ $form.name }} from {{ $form.nested.city }}", "Hi Ada from Turin"],
    ["{{ $form.tags }}", '["a","b"]'],
    ["{{ $form.missing }}", "{{ $form.missing }}"],
    ["next={{ $flow.state.next }}", "next=SOFTWARE"],
    ["{{ $flow.state.list }}", "[1,2]"],
    ["[{{ $flow.state.empty }}]", "[]"],
    ["{{ $flow.state.nope }}", "{{ $flow.state.nope }}"],
    ["{{ $flow.sessionId }}/{{ $flow.chatId }}/{{ $flow.chatflowId }}/{{ $flow.apiMessageId }}", "s1/c1/f1/m1"],
    ["{{ $flow.input }}", "{{ $flow.input }}"],
    ["{{ $vars.apiBase }}/x", "https://api.example.com/x"],
    ["{{ $vars.unknown }}", "{{ $vars.unknown }}"],
    ["{{ llmAgentflow_0 }}", "latest"],
    ["{{ llmAgentflow\\_0 }}", "latest"],
    ["{{ llmAgentflow_0.output.subject }}!", "Newer!"],
    ["{{ llmAgentflow_0.output.count }}", 4],
    ["{{ llmAgentflow_0.output.missing }}", "{{ llmAgentflow_0.output.missing }}"],
    ["{{ httpAgentflow_0 }}", '{"items":[1,2]}'],
    ["{{ httpAgentflow_0.output.http.data.items }}", "[1,2]"],
    ["{{ llmAgentflow_9 }}", "{{ llmAgentflow_9 }}"],
    ["{{ chat_history }}", "Human: hi\nAssistant: hello"],
    ["{{ runtime_messages_length }}", "3"],
    ["{{ loop_count }}", "2"],
    ["{{ current_date_time }}", "2026-11-20T10:00:00.000Z"],
    ["{{ output }} stays", "{{ output }} stays"],
    ["{{ something.else }}", "{{ something.else }}"],
  ];
  for (const [text, expected] of cases)
    it(`${text} → ${JSON.stringify(expected)}`, () => expect(resolveString(text, scope())).toEqual(expected));

  it("{{ $iteration }}: the item, its properties, a string item for any path", () => {
    expect(resolveString("{{ $iteration }}", scope({ iteration: { value: { item: "abc" } } }))).toBe('{"item":"abc"}');
    expect(resolveString("do {{ $iteration.item }}", scope({ iteration: { value: { item: "abc" } } }))).toBe("do abc");
    expect(resolveString("{{ $iteration.x }}", scope({ iteration: { value: "plain" } }))).toBe("plain");
    expect(resolveString("{{ $iteration }}", scope())).toBe("{{ $iteration }}");
  });

  it("uploaded file text goes before a string that uses {{ question }}, and is {{ file_attachment }}", () => {
    expect(resolveString("Q: {{ question }}", scope({ fileText: "FILE" }))).toBe("FILE\n\nQ: What time is it?");
    expect(resolveString("[{{ file_attachment }}]", scope({ fileText: "FILE" }))).toBe("[FILE]");
  });

  it("replacement text with $ patterns is inserted as is", () => {
    expect(resolveString("{{ question }}", scope({ question: "costs $& and $1" }))).toBe("costs $& and $1");
  });
});

describe("TipTap HTML", () => {
  it("mention spans become their reference, which is then resolved", () => {
    const html = '<p><span class="variable" data-type="mention" data-id="question">{{ question }}</span></p>';
    expect(resolveString(html, scope())).toBe("What time is it?");
    expect(
      resolveString('<p><span class="variable" data-type="mention" data-id="$flow.state.next">{{ $flow.state.next }}</span> </p>', scope()),
    ).toBe("SOFTWARE");
  });

  it("block elements become Markdown; text that does not start with a block tag is left alone", () => {
    expect(htmlToMarkdown("<p>Hello <strong>world</strong> &amp; <em>you</em></p><p>Second&nbsp;line<br>next</p>")).toBe(
      "Hello **world** & _you_\n\nSecond line\nnext",
    );
    expect(htmlToMarkdown("<h2>Title</h2><ul><li><p>one</p></li><li><p>two</p></li></ul><ol><li>first</li><li>second</li></ol>")).toBe(
      "## Title\n\n- one\n- two\n\n1. first\n2. second",
    );
    expect(htmlToMarkdown("<blockquote><p>quoted</p></blockquote><pre><code>a &lt; b\n</code></pre>")).toBe("> quoted\n\n```\na < b\n```");
    expect(plainText("Use <b>tags</b> in <instruction>text</instruction>")).toBe("Use <b>tags</b> in <instruction>text</instruction>");
    expect(plainText("  <div>x</div>")).toBe("x");
  });
});

describe("flow state", () => {
  it("Update Flow State merges rows over the state", () => {
    expect(
      updateFlowState({ a: "1", b: "2" }, [
        { key: "b", value: "3" },
        { key: "c", value: "" },
      ]),
    ).toEqual({ a: "1", b: "3", c: "" });
    expect(updateFlowState({ a: "1" }, "")).toEqual({ a: "1" });
  });

  it("{{ output }} templates: whole, a JSON path keeping its type, a substring; every key is scanned", () => {
    const out = JSON.stringify({ next: "FINISH", list: [1, 2], deep: { x: true } });
    expect(
      fillOutputTemplates(
        {
          a: "{{ output }}",
          b: "{{output.next}}",
          c: "{{ output.list }}",
          d: "{{ output.deep.x }}",
          e: "got {{ output }}",
          f: "{{ output.nope }}",
          g: 5,
        },
        out,
      ),
    ).toEqual({
      a: out,
      b: "FINISH",
      c: [1, 2],
      d: true,
      e: `got ${out}`,
      f: "{{ output.nope }}",
      g: 5,
    });
    expect(fillOutputTemplates({ a: "{{ output.x }}" }, "not json")).toEqual({ a: "{{ output.x }}" });
  });
});
