// Issue 28 item 6: a body sent without Content-Length (chunked) is held to its route's limit as it
// streams: past the limit the 413 naming the limit, on every route family with a body (JSON routes,
// document store uploads streamed to R2, chatflow vector upserts, the import, webhooks, MCP), and
// nothing is stored. A body under the limit arrives whole. (That the answer comes over a connection
// that is not reset is checked against the real server: test/e2e/bodies.e2e.mjs.)
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_KEY, BASE, call, expectError, json } from "../helpers";
import { messagesOf } from "../agentflow-api/flows";
import { count, stagedRows } from "../export-import/helpers";
import { enableMcp } from "../mcp/helpers";
import { LOCAL, form, newStore, snapshot } from "../routes/document-store-helpers";
import { saveWebhookFlow } from "../webhooks/helpers";
import { setVars } from "./helpers";
import { multipart } from "./pinging";

const MB = 1024 * 1024;
const encoder = new TextEncoder();

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});
const vars = (values: Record<string, string>) => {
  restore?.();
  restore = setVars(values);
};

/**
 * A body of unknown length: `head`, then `size` bytes of `fill`, then `tail`, in pieces of 64 KB at
 * most, made as it is read. `sent.bytes` counts what the worker read of it.
 */
function chunked(head: string | Uint8Array, size = 0, tail = "", fill = "a") {
  const PIECE = 64 * 1024;
  const filler = encoder.encode(fill.repeat(PIECE));
  const pieces = (function* () {
    const first = typeof head === "string" ? encoder.encode(head) : head;
    for (let at = 0; at < first.length; at += PIECE) yield first.subarray(at, at + PIECE);
    for (let left = size; left > 0; left -= PIECE) yield filler.subarray(0, Math.min(left, PIECE));
    if (tail) yield encoder.encode(tail);
  })();
  const sent = { bytes: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = pieces.next();
      if (next.done) return controller.close();
      sent.bytes += next.value.length;
      controller.enqueue(next.value);
    },
  });
  return { stream, sent };
}

/** Sends `body` as it is, with no Content-Length. */
function send(path: string, body: ReadableStream<Uint8Array>, headers: Record<string, string>, token: string | null = ADMIN_KEY) {
  const request = new Request(`${BASE}${path}`, {
    method: "POST",
    body,
    headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    duplex: "half",
  } as RequestInit);
  expect(request.headers.has("content-length")).toBe(false);
  return (exports as unknown as { default: Fetcher }).default.fetch(request);
}

const JSON_TYPE = { "content-type": "application/json" };
const chatflowsNamed = (name: string) => count("SELECT COUNT(*) AS n FROM chat_flow WHERE name = ?", name);

describe("JSON routes (MAX_BODY_MB)", () => {
  it("a 30 MB chunked body: 413 naming MAX_BODY_MB once all of it was read; no record", async () => {
    const name = `big-${crypto.randomUUID()}`;
    const body = chunked(`{"name":"${name}","flowData":"{\\"nodes\\":[],\\"edges\\":[]}","category":"`, 30 * MB, '"}');
    const err = await expectError(await send("/chatflows", body.stream, JSON_TYPE), 413);
    expect(err.message).toBe("Request body is larger than the limit of 5 MB (MAX_BODY_MB)");
    // The answer waited for the whole body (drained, not parsed): the connection is left clean.
    expect(body.sent.bytes).toBeGreaterThan(30 * MB);
    expect(await chatflowsNamed(name)).toBe(0);
  }, 60_000);

  it("a chunked body under the limit arrives whole", async () => {
    const name = `streamed-${crypto.randomUUID()}`;
    const pad = 1_500_000;
    const body = chunked(`{"name":"${name}","flowData":"{\\"nodes\\":[],\\"edges\\":[],\\"pad\\":\\"`, pad, '\\"}"}', "c");
    const res = await send("/chatflows", body.stream, JSON_TYPE);
    expect(res.status).toBe(200);
    const { id } = await res.json<{ id: string }>();
    const stored = JSON.parse((await json("GET", `/chatflows/${id}`)).flowData);
    expect(stored.pad).toBe("c".repeat(pad));
  }, 30_000);

  it("over the limit without a bearer: still the 413 (the handler refused without reading the body)", async () => {
    vars({ MAX_BODY_MB: "1" });
    const body = chunked('{"name":"x","category":"', 2 * MB, '"}');
    const err = await expectError(await send("/chatflows", body.stream, JSON_TYPE, null), 413);
    expect(err.message).toBe("Request body is larger than the limit of 1 MB (MAX_BODY_MB)");
    expect(body.sent.bytes).toBeGreaterThan(2 * MB);
  });

  it("under the limit without a bearer: the 401, after the body was read", async () => {
    const body = chunked('{"name":"x","category":"', MB, '"}');
    await expectError(await send("/chatflows", body.stream, JSON_TYPE, null), 401);
    expect(body.sent.bytes).toBeGreaterThan(MB);
  });
});

describe("uploads streamed to R2", () => {
  it("a document store upsert past the body limit mid-file: 413, no R2 object, no loader, no chunk", async () => {
    vars({ MAX_STREAMED_FILE_MB: "1", MAX_UPLOAD_MB: "1", MAX_BODY_MB: "1" });
    const store = await newStore();
    const before = await snapshot(store.id);
    // Three files under the file limit, 2.7 MB together: the first two reach R2 before the limit is passed.
    const files = ["a", "b", "c"].map((n) => ({ name: `${n}.txt`, type: "text/plain", data: `${n} words here. `.repeat((0.9 * MB) / 14) }));
    const { raw, headers } = await multipart(form(files, LOCAL));
    const body = chunked(new Uint8Array(raw));
    const err = await expectError(await send(`/document-store/upsert/${store.id}`, body.stream, headers), 413);
    expect(err.message).toMatch(/^Upload is larger than the limit of 2 MB \(the largest file limit/);
    expect(body.sent.bytes).toBe(raw.byteLength);
    expect(await snapshot(store.id)).toEqual(before);
    expect((await env.FILES.list({ prefix: `docustore/${store.id}/` })).objects).toEqual([]);
  });

  it("a chunked document store upsert under the limits is streamed to R2 whole and upserted", async () => {
    const store = await newStore();
    const text = "Streamed without a length, one window at a time.\n\n".repeat(40_000); // 2 MB
    const { raw, headers } = await multipart(form([{ name: "streamed.txt", type: "text/plain", data: text }], LOCAL));
    const res = await send(`/document-store/upsert/${store.id}`, chunked(new Uint8Array(raw)).stream, headers);
    expect(res.status).toBe(200);
    const files = (await env.FILES.list({ prefix: `docustore/${store.id}/` })).objects;
    expect(files.map((f) => f.size)).toEqual([text.length]);
  }, 60_000);

  it("a chatflow vector upsert over MAX_UPLOAD_MB: 413 naming it", async () => {
    vars({ MAX_UPLOAD_MB: "1" });
    const flow = await json("POST", "/chatflows", { body: { name: "vectors", flowData: '{"nodes":[],"edges":[]}' } });
    const { raw, headers } = await multipart(form([{ name: "big.txt", type: "text/plain", data: "v".repeat(2 * MB) }]));
    const body = chunked(new Uint8Array(raw));
    const err = await expectError(await send(`/vector/upsert/${flow.id}`, body.stream, headers), 413);
    expect(err.message).toBe("Upload is larger than the limit of 1 MB (MAX_UPLOAD_MB)");
    expect(body.sent.bytes).toBe(raw.byteLength);
    expect(await count("SELECT COUNT(*) AS n FROM upsert_history WHERE chatflowid = ?", flow.id)).toBe(0);
  });
});

describe("the import (MAX_IMPORT_MB)", () => {
  it("an export file past the limit mid-stream: 413 naming MAX_IMPORT_MB, nothing imported or left staged", async () => {
    vars({ MAX_IMPORT_MB: "1" });
    const id = crypto.randomUUID();
    const flow = { id, name: "moved", flowData: '{"nodes":[],"edges":[]}', deployed: false, isPublic: false, type: "CHATFLOW" };
    const staged = await stagedRows();
    const head = `{"ChatFlow":[${JSON.stringify(flow)}],"Variable":[{"id":"${crypto.randomUUID()}","name":"pad","type":"static","value":"`;
    const body = chunked(head, 3 * MB, '"}]}');
    const err = await expectError(await send("/export-import/import", body.stream, JSON_TYPE), 413);
    expect(err.message).toBe("The import file is larger than the limit of 1 MB (MAX_IMPORT_MB)");
    expect(body.sent.bytes).toBeGreaterThan(3 * MB);
    expect((await call("GET", `/chatflows/${id}`)).status).toBe(404);
    expect(await stagedRows()).toBe(staged);
  });
});

describe("webhooks and MCP (1 MB)", () => {
  it("a webhook body past 1 MB: 413 before any run, no message stored", async () => {
    const id = await saveWebhookFlow();
    const body = chunked('{"name":"', 2 * MB, '"}');
    const err = await expectError(await send(`/webhook/${id}`, body.stream, JSON_TYPE, null), 413);
    expect(err.message).toBe("Request body is larger than the webhook limit of 1 MB");
    expect(body.sent.bytes).toBeGreaterThan(2 * MB);
    expect(await messagesOf(id)).toEqual([]);
  });

  it("an MCP tools/call past 1 MB: 413, the flow never ran", async () => {
    const flow = await json("POST", "/chatflows", { body: { name: "mcp", flowData: '{"nodes":[],"edges":[]}' } });
    const { token } = await enableMcp(flow.id);
    const head = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_flow","arguments":{"question":"';
    const body = chunked(head, 2 * MB, '"}}}');
    const res = await send(
      `/mcp/${flow.id}`,
      body.stream,
      { ...JSON_TYPE, accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
      token,
    );
    expect((await expectError(res, 413)).message).toBe("Request body is larger than the MCP limit of 1 MB");
    expect(body.sent.bytes).toBeGreaterThan(2 * MB);
    expect(await messagesOf(flow.id)).toEqual([]);
  });
});
