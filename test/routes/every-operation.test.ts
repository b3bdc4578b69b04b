import { describe, expect, it } from "vitest";
import { call, json } from "../helpers";

// A sweep of every operation the API documents (/openapi.json): hostile path ids, malformed and
// mistyped bodies, garbage query strings. Whatever the route, the answer is a 4xx (or a 2xx for
// what it may accept) with a JSON body (a page for the one operation documented as a page, the
// OAuth2 callback): never a 5xx, never HTML or text elsewhere. bad-input.test.ts checks
// the exact statuses route by route; this catches a route added later that nobody fuzzed.

const IDS = ["00000000-0000-0000-0000-000000000000", "x", "%00", "a".repeat(3000), "..%2F..%2Fetc", "%E0%A4%A"];
const BODIES = [
  undefined,
  "{",
  "[]",
  "null",
  '"text"',
  '{"a":1}',
  JSON.stringify({ name: {}, flowData: 5, question: [], id: "../x", storeId: 1, chatflowid: {}, file: null, url: 7 }),
];
const QUERY = "?limit=-1&page=abc&order=zzz&startDate=garbage&endDate=%00&chatType=[&sortOrder=x&feedback=maybe";

// Operations whose whole job is to reach an outside service with a well-formed body (tests never
// call the internet): their input errors are covered in their own tests.
const OUTSIDE = new Set(["POST /prompts-list"]);

interface Op {
  method: string;
  path: string;
  /** Documents a 501: what it does not do here (e.g. a password reset by email), said in our error shape. */
  notHere: boolean;
  /** Answers a page (text/html), refusals included: the OAuth2 callback, shown in the studio's pop-up. */
  page: boolean;
}

async function operations(): Promise<Op[]> {
  type Responses = Record<string, { content?: Record<string, unknown> } | undefined>;
  const doc = await json<{ paths: Record<string, Record<string, { responses?: Responses }>> }>("GET", "/openapi.json");
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([m, op]) => ({
      method: m.toUpperCase(),
      path,
      notHere: !!op.responses?.["501"],
      page: !!op.responses?.["200"]?.content?.["text/html"],
    })),
  );
}

/** What is wrong with one answer (undefined: nothing). */
async function problem(method: string, path: string, raw?: string, notHere = false, page = false): Promise<string | undefined> {
  const res = await call(method, path, raw === undefined ? {} : { raw, headers: { "content-type": "application/json" } });
  const text = await res.text();
  const at = `${res.status} ${method} ${path.slice(0, 100)} body=${String(raw).slice(0, 30)}: ${text.slice(0, 160)}`;
  if (res.status >= 500 && !(notHere && res.status === 501)) return at;
  if (res.status >= 400 && page) return res.headers.get("content-type")?.includes("text/html") ? undefined : `not a page: ${at}`;
  if (res.status >= 400) {
    if (!res.headers.get("content-type")?.includes("application/json")) return `not JSON: ${at}`;
    const body = JSON.parse(text);
    // The OpenAI-compatible API answers in OpenAI's error shape (docs/openai.md), an MCP server in
    // JSON-RPC's (its protocol), the rest in ours.
    const shaped = path.startsWith("/openai/")
      ? typeof body.error?.message === "string" && typeof body.error?.type === "string"
      : /^\/mcp(\/|\?|$)/.test(path)
        ? body.jsonrpc === "2.0" && typeof body.error?.code === "number" && typeof body.error?.message === "string"
        : body.statusCode === res.status && body.success === false && typeof body.message === "string";
    if (!shaped) return `not the error shape: ${at}`;
  }
  return undefined;
}

describe("every documented operation, given hostile input", () => {
  it("answers a 4xx JSON error or a 2xx, never a 5xx (a documented 501 aside)", { timeout: 120_000 }, async () => {
    const ops = (await operations()).filter((op) => !OUTSIDE.has(`${op.method} ${op.path}`));
    expect(ops.length).toBeGreaterThan(100);
    const problems: string[] = [];
    let sent = 0;
    for (const { method, path, notHere, page } of ops) {
      const paths = /\{\w+\}/.test(path) ? IDS.map((id) => path.replace(/\{\w+\}/g, id)) : [path];
      for (const p of paths) {
        for (const target of [p, p + QUERY]) {
          for (const raw of method === "GET" || method === "DELETE" ? [undefined] : BODIES) {
            sent++;
            const found = await problem(method, target, raw, notHere, page);
            if (found) problems.push(found);
          }
        }
      }
    }
    expect(sent).toBeGreaterThan(1000);
    expect(problems).toEqual([]);
  });
});
