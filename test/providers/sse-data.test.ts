// The server-sent-event reader every streaming chat provider uses (OpenAI-compatible, Anthropic,
// Gemini, Workers AI): what `data` payloads it hands on for the framings real servers send.
import { describe, expect, it } from "vitest";
import { sseData } from "../../src/providers/chat/http";

const bytes = new TextEncoder();

async function payloads(chunks: string[]): Promise<string[]> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(bytes.encode(c));
      controller.close();
    },
  });
  const out: string[] = [];
  for await (const data of sseData(body)) out.push(data);
  return out;
}

describe("sseData", () => {
  it("splits events on blank lines, whatever the chunking, CRLF or LF", async () => {
    const wire = 'event: message_start\r\ndata: {"a":1}\r\n\r\n: keep-alive\n\ndata: {"b":2}\n\ndata: [DONE]\n\n';
    expect(await payloads([wire])).toEqual(['{"a":1}', '{"b":2}', "[DONE]"]);
    // byte by byte: an event split anywhere, even inside "\r\n", reads the same
    expect(await payloads([...wire])).toEqual(['{"a":1}', '{"b":2}', "[DONE]"]);
  });

  it("joins multi-line data with newlines and keeps a payload's own spaces after the first", async () => {
    expect(await payloads(["data: one\ndata:  two\nid: 7\n\n"])).toEqual(["one\n two"]);
  });

  it("a last event the stream ends before its blank line still counts", async () => {
    expect(await payloads(['data: {"x":1}\n\ndata: {"y":2}'])).toEqual(['{"x":1}', '{"y":2}']);
    expect(await payloads(['data: {"y":2}\n'])).toEqual(['{"y":2}']);
  });

  it("a multi-byte character split across chunks is decoded whole", async () => {
    const euro = bytes.encode('data: "€"\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(euro.slice(0, 8));
        controller.enqueue(euro.slice(8));
        controller.close();
      },
    });
    const out: string[] = [];
    for await (const data of sseData(body)) out.push(data);
    expect(out).toEqual(['"€"']);
  });
});
