import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectClientError, json, uuid } from "../helpers";

// Every endpoint gets bad input of every kind; every answer must be a 4xx with the JSON error
// body (never a 500, never HTML or plain text), and where the contract fixes the status, that one.

const HUGE = "x".repeat(3 * 1024 * 1024); // 3 MB: under the 5 MB body limit, over every field limit
const DEEP = JSON.parse(`${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`);
const JSON_CT = { "content-type": "application/json" };

// Placeholders until beforeAll has made the records (test names are built from them).
let ids = {
  tool: "{id}",
  flow: "{id}",
  assistant: "{id}",
  apikey: "{id}",
  variable: "{id}",
  credential: "{id}",
  message: "{id}",
  feedback: "{id}",
};
// The tools and chatflows stored before the bad requests (other test files share the storage).
let before = { tools: [] as string[], flows: 0 };

beforeAll(async () => {
  const tool = await json("POST", "/tools", { body: { name: "bad-input tool" } });
  const flow = await json("POST", "/chatflows", { body: { name: "bad-input flow", flowData: "{}", isPublic: true } });
  const assistant = await json("POST", "/assistants", { body: { details: { name: "a" } } });
  const apikey = await json("POST", "/apikey", { body: { keyName: "k" } });
  const variable = await json("POST", "/variables", { body: { name: "bad_input_var", value: "v" } });
  const credential = await json("POST", "/credentials", { body: { name: "c", credentialName: "openAIApi", plainDataObj: { k: "v" } } });
  const message = uuid();
  const user = uuid();
  await env.DB.batch([
    env.DB.prepare("INSERT INTO chat_message (id, role, chatflowid, content, chatType, chatId, createdDate) VALUES (?,?,?,?,?,?,?)").bind(
      user,
      "userMessage",
      flow.id,
      "q",
      "EXTERNAL",
      "chat-1",
      "2026-01-01T00:00:00.000Z",
    ),
    env.DB.prepare("INSERT INTO chat_message (id, role, chatflowid, content, chatType, chatId, createdDate) VALUES (?,?,?,?,?,?,?)").bind(
      message,
      "apiMessage",
      flow.id,
      "a",
      "EXTERNAL",
      "chat-1",
      "2026-01-01T00:00:01.000Z",
    ),
  ]);
  // A second rated message, so that a wrongly accepted POST /feedback would succeed (not 409).
  const feedback = await json("POST", "/feedback", { body: { messageId: message, rating: "THUMBS_UP" } });
  await env.DB.prepare("DELETE FROM chat_message_feedback WHERE id = ?").bind(feedback.id).run();
  const kept = await json("POST", "/feedback", { body: { messageId: message, rating: "THUMBS_UP", content: "ok" } });
  await env.DB.prepare("UPDATE chat_message_feedback SET messageId = ? WHERE id = ?").bind(user, kept.id).run();
  ids = {
    tool: tool.id,
    flow: flow.id,
    assistant: assistant.id,
    apikey: apikey.id,
    variable: variable.id,
    credential: credential.id,
    message,
    feedback: kept.id,
  };
  before = { tools: (await json("GET", "/tools")).map((t: any) => t.id).sort(), flows: (await json("GET", "/chatflows")).length };
});

interface BodyEndpoint {
  method: string;
  path: () => string;
  /** Status for well-formed JSON failing validation: 422 where the contract names it, else 400. */
  invalid: 400 | 422;
  valid: () => Record<string, unknown>;
  wrongTypes: () => Record<string, unknown>[];
  huge: () => Record<string, unknown>[];
  badEnums: () => Record<string, unknown>[];
}

const bodyEndpoints: BodyEndpoint[] = [
  {
    method: "POST",
    path: () => "/tools",
    invalid: 400,
    valid: () => ({ name: "t" }),
    wrongTypes: () => [
      { name: 5 },
      { name: true },
      { name: { n: 1 } },
      { name: "t", description: 5 },
      { name: "t", schema: { a: 1 } },
      { name: "t", func: false },
      { name: "t", id: 12 },
    ],
    huge: () => [{ name: HUGE }, { name: "t", func: HUGE }, { name: "t", schema: `"${HUGE}"` }, { name: "t", description: HUGE }],
    badEnums: () => [
      { name: "t", schema: "{not json" },
      { name: "t", id: "not-a-uuid" },
    ],
  },
  {
    method: "PUT",
    path: () => `/tools/${ids.tool}`,
    invalid: 400,
    valid: () => ({ color: "red" }),
    wrongTypes: () => [{ name: 5 }, { color: false }, { iconSrc: [] }, { name: "" }],
    huge: () => [{ name: HUGE }, { func: HUGE }],
    badEnums: () => [{ schema: "nope" }],
  },
  {
    method: "POST",
    path: () => "/chatflows",
    invalid: 422,
    valid: () => ({ name: "f", flowData: "{}" }),
    wrongTypes: () => [
      { name: 5, flowData: "{}" },
      { name: "f", flowData: 5 },
      { name: "f", flowData: { nodes: [] } },
      { name: "f", flowData: "{}", deployed: "true" },
      { name: "f", flowData: "{}", isPublic: "false" },
      { name: "f", flowData: "{}", isPublic: 1 },
      { name: "f", flowData: "{}", chatbotConfig: { a: 1 } },
      { name: "f", flowData: "{}", category: 7 },
      { name: "f", flowData: "{}", apikeyid: 5 },
    ],
    huge: () => [
      { name: HUGE, flowData: "{}" },
      { name: "f", flowData: `{"x":"${HUGE}"}` },
      { name: "f", flowData: "{}", chatbotConfig: `{"x":"${HUGE}"}` },
    ],
    badEnums: () => [
      { name: "f", flowData: "{}", type: "WORKFLOW" },
      { name: "f", flowData: "{}", type: "" },
      { name: "f", flowData: "not json" },
      { name: "f", flowData: "[]" },
      { name: "f", flowData: "{}", apikeyid: uuid() },
      { name: "f", flowData: "{}", id: "abc" },
    ],
  },
  {
    method: "PUT",
    path: () => `/chatflows/${ids.flow}`,
    invalid: 400,
    valid: () => ({ name: "f2" }),
    wrongTypes: () => [{ name: 5 }, { deployed: "yes" }, { isPublic: "true" }, { flowData: {} }, { apiConfig: [] }],
    huge: () => [{ name: HUGE }, { flowData: `{"x":"${HUGE}"}` }, { speechToText: `{"x":"${HUGE}"}` }],
    badEnums: () => [{ type: "FLOW" }, { flowData: "{" }, { analytic: "{x" }, { apikeyid: uuid() }],
  },
  {
    method: "POST",
    path: () => "/assistants",
    invalid: 422,
    valid: () => ({ iconSrc: "i", details: { name: "a" } }),
    wrongTypes: () => [
      // details as JSON text is accepted (the studio sends it so: API.md "The studio"); text that is no object is not.
      { details: "[1]" },
      { details: 42 },
      { details: [] },
      { details: null },
      { details: { name: 5 } },
      { details: { temperature: "0.5" } },
      { details: { tools: "function" } },
      { details: {}, iconSrc: 5 },
      { details: {}, credential: 5 },
      { details: { tool_resources: [] } },
    ],
    huge: () => [{ details: { instructions: HUGE } }, { details: { extra: HUGE } }, { details: {}, iconSrc: HUGE }],
    badEnums: () => [
      { details: { tools: ["web_browser"] } },
      { details: {}, type: "ANTHROPIC" },
      { details: { temperature: 9 } },
      { details: { top_p: -1 } },
      { details: {}, credential: uuid() },
      { details: {}, credential: "cred" },
    ],
  },
  {
    method: "PUT",
    path: () => `/assistants/${ids.assistant}`,
    invalid: 400,
    valid: () => ({ iconSrc: "i" }),
    wrongTypes: () => [{ details: "x" }, { details: { model: 4 } }, { iconSrc: true }],
    huge: () => [{ details: { description: HUGE } }, { iconSrc: HUGE }],
    badEnums: () => [{ details: { tools: ["x"] } }, { type: "custom" }, { credential: uuid() }],
  },
  {
    method: "POST",
    path: () => "/apikey",
    invalid: 400,
    valid: () => ({ keyName: "k" }),
    wrongTypes: () => [{ keyName: 1 }, { keyName: true }, { keyName: ["k"] }, {}],
    huge: () => [{ keyName: HUGE }],
    badEnums: () => [{ keyName: "" }, { keyName: "   " }],
  },
  {
    method: "PUT",
    path: () => `/apikey/${ids.apikey}`,
    invalid: 400,
    valid: () => ({ keyName: "k2" }),
    wrongTypes: () => [{ keyName: 1 }, {}],
    huge: () => [{ keyName: HUGE }],
    badEnums: () => [{ keyName: "" }],
  },
  {
    method: "POST",
    path: () => "/variables",
    invalid: 422,
    valid: () => ({ name: "v" }),
    wrongTypes: () => [
      { name: 1 },
      { name: "v", value: 1 },
      { name: "v", value: true },
      { name: "v", value: { a: 1 } },
      { name: "v", type: 1 },
    ],
    huge: () => [{ name: HUGE }, { name: "v", value: HUGE }],
    badEnums: () => [{ name: "v", type: "dynamic" }, { name: "v", type: "STATIC" }, { name: "" }, { name: "v", id: "x" }],
  },
  {
    method: "PUT",
    path: () => `/variables/${ids.variable}`,
    invalid: 400,
    valid: () => ({ value: "v2" }),
    wrongTypes: () => [{ name: 1 }, { value: 2 }, { type: false }],
    huge: () => [{ name: HUGE }, { value: HUGE }],
    badEnums: () => [{ type: "dynamic" }, { name: "" }],
  },
  {
    method: "POST",
    path: () => "/credentials",
    invalid: 400,
    valid: () => ({ name: "c", credentialName: "openAIApi", plainDataObj: { k: "v" } }),
    wrongTypes: () => [
      { name: 1, credentialName: "openAIApi", plainDataObj: {} },
      { name: "c", credentialName: false, plainDataObj: {} },
      { name: "c", credentialName: "openAIApi", plainDataObj: "secret" },
      { name: "c", credentialName: "openAIApi", plainDataObj: [1] },
      { name: "c", credentialName: "openAIApi" },
    ],
    huge: () => [
      { name: HUGE, credentialName: "openAIApi", plainDataObj: {} },
      { name: "c", credentialName: HUGE, plainDataObj: {} },
      { name: "c", credentialName: "openAIApi", plainDataObj: { k: HUGE } },
    ],
    badEnums: () => [
      { name: "c", credentialName: "", plainDataObj: {} },
      { id: "x", name: "c", credentialName: "a", plainDataObj: {} },
    ],
  },
  {
    method: "PUT",
    path: () => `/credentials/${ids.credential}`,
    invalid: 400,
    valid: () => ({ name: "c2" }),
    wrongTypes: () => [{ name: 1 }, { plainDataObj: "x" }, { plainDataObj: null }, { credentialName: [] }],
    huge: () => [{ name: HUGE }, { plainDataObj: { k: HUGE } }],
    badEnums: () => [{ credentialName: " " }],
  },
  {
    method: "POST",
    path: () => "/leads",
    invalid: 400,
    valid: () => ({ chatflowid: ids.flow, name: "n" }),
    wrongTypes: () => [
      { chatflowid: 5 },
      { chatflowid: ids.flow, name: 5 },
      { chatflowid: ids.flow, email: true },
      { chatflowid: ids.flow, phone: 12345 },
      { chatflowid: ids.flow, chatId: 1 },
      { name: "n" },
    ],
    huge: () => [
      { chatflowid: ids.flow, name: HUGE },
      { chatflowid: ids.flow, email: HUGE },
      { chatflowid: ids.flow, chatId: HUGE },
    ],
    badEnums: () => [{ chatflowid: "not-a-uuid" }, { chatflowid: uuid() }, { chatflowid: ids.flow, chatId: "" }],
  },
  {
    method: "POST",
    path: () => "/feedback",
    invalid: 400,
    valid: () => ({ messageId: ids.message, rating: "THUMBS_DOWN" }),
    wrongTypes: () => [
      { messageId: 5, rating: "THUMBS_UP" },
      { messageId: ids.message, rating: true },
      { messageId: ids.message, rating: "THUMBS_UP", content: 5 },
      { messageId: ids.message, rating: "THUMBS_UP", chatId: 5 },
      { rating: "THUMBS_UP" },
    ],
    huge: () => [
      { messageId: ids.message, rating: "THUMBS_UP", content: HUGE },
      { messageId: ids.message, rating: "THUMBS_UP", chatId: HUGE },
    ],
    badEnums: () => [
      { messageId: ids.message, rating: "MEH" },
      { messageId: ids.message, rating: "thumbs_up" },
      { messageId: "m1", rating: "THUMBS_UP" },
      { messageId: uuid(), rating: "THUMBS_UP" },
      { messageId: ids.message, rating: "THUMBS_UP", chatflowid: uuid() },
      { messageId: ids.message, rating: "THUMBS_UP", chatId: "another-chat" },
    ],
  },
  {
    method: "POST",
    path: () => `/feedback/${ids.flow}`,
    invalid: 400,
    valid: () => ({ messageId: ids.message, rating: "THUMBS_DOWN" }),
    wrongTypes: () => [
      { messageId: ids.message, rating: 1 },
      { messageId: [ids.message], rating: "THUMBS_UP" },
    ],
    huge: () => [{ messageId: ids.message, rating: "THUMBS_UP", content: HUGE }],
    badEnums: () => [
      { messageId: ids.message, rating: "LOVE" },
      { messageId: ids.message, rating: "THUMBS_UP", chatflowid: uuid() },
    ],
  },
  {
    method: "PUT",
    path: () => `/feedback/${ids.feedback}`,
    invalid: 400,
    valid: () => ({ content: "c" }),
    wrongTypes: () => [{ rating: 1 }, { content: 5 }, { content: ["a"] }],
    huge: () => [{ content: HUGE }],
    badEnums: () => [{ rating: "GREAT" }],
  },
  {
    method: "PATCH",
    path: () => "/upsert-history",
    invalid: 400,
    valid: () => ({ ids: [uuid()] }),
    wrongTypes: () => [{ ids: "x" }, { ids: [5] }, { ids: {} }, {}],
    huge: () => [{ ids: [HUGE] }],
    badEnums: () => [{ ids: ["not-a-uuid"] }, { ids: [] }],
  },
];

const label = (e: BodyEndpoint) => `${e.method} ${e.path().replace(/[0-9a-f-]{36}/, "{id}")}`;

async function expectStatus(res: Response, status: number | null, what: string) {
  const body = await expectClientError(res, what);
  if (status !== null) expect(body.statusCode, `${what}: ${body.message}`).toBe(status);
  return body;
}

describe("bad request bodies on every endpoint that takes one", () => {
  it.each(bodyEndpoints.map((e) => [label(e), e] as const))("%s", async (_name, e) => {
    const path = e.path();
    const send = (raw: BodyInit | undefined, headers: Record<string, string> = JSON_CT) => call(e.method, path, { raw, headers });

    // Malformed JSON, or JSON that is not an object: 400.
    for (const raw of ["{not json", '{"a":', "{'single':'quotes'}", "", "[", "NaN", "undefined", '{"a":1}}']) {
      await expectStatus(await send(raw), 400, `malformed ${JSON.stringify(raw)}`);
    }
    for (const value of [[e.valid()], [], null, 42, "a string", true]) {
      await expectStatus(await send(JSON.stringify(value)), 400, `non-object ${JSON.stringify(value)}`);
    }
    // A body that is missing altogether.
    await expectStatus(await call(e.method, path), 400, "no body");
    // A content type the endpoint does not take: 415.
    const text = JSON.stringify(e.valid());
    await expectStatus(await send(text, { "content-type": "text/plain" }), 415, "text/plain");
    await expectStatus(
      await send(new URLSearchParams({ a: "b" }).toString(), { "content-type": "application/x-www-form-urlencoded" }),
      415,
      "form",
    );
    await expectStatus(await send(text, { "content-type": "application/xml" }), 415, "xml");
    await expectStatus(await send(new TextEncoder().encode(text), {}), 415, "no content type");

    // Well-formed JSON failing validation.
    for (const body of e.wrongTypes())
      await expectStatus(await call(e.method, path, { body }), e.invalid, `wrong type ${JSON.stringify(body)}`);
    for (const body of e.badEnums()) await expectClientError(await call(e.method, path, { body }), `bad value ${JSON.stringify(body)}`);
    for (const body of e.huge()) await expectStatus(await call(e.method, path, { body }), e.invalid, `huge ${Object.keys(body)}`);
    // A deeply nested value in a typed field.
    const first = Object.keys(e.valid())[0];
    await expectStatus(await call(e.method, path, { body: { ...e.valid(), [first]: DEEP } }), e.invalid, `deep ${first}`);
  });

  it("left every existing record as it was", async () => {
    expect((await json("GET", `/tools/${ids.tool}`)).name).toBe("bad-input tool");
    expect(await json("GET", `/chatflows/${ids.flow}`)).toMatchObject({
      name: "bad-input flow",
      flowData: "{}",
      type: "CHATFLOW",
      deployed: false,
      isPublic: true,
    });
    expect((await json("GET", `/assistants/${ids.assistant}`)).details).toEqual({ name: "a" });
    expect((await json("GET", `/apikey/${ids.apikey}`)).keyName).toBe("k");
    expect((await json("GET", "/variables")).find((v: any) => v.id === ids.variable)).toMatchObject({
      name: "bad_input_var",
      value: "v",
      type: "static",
    });
    expect((await json("GET", `/credentials/${ids.credential}`)).name).toBe("c");
    expect(await json("GET", `/leads/${ids.flow}`)).toEqual([]);
    const fb = await json("GET", `/feedback/${ids.flow}`);
    expect(fb).toHaveLength(1);
    expect(fb[0]).toMatchObject({ id: ids.feedback, rating: "THUMBS_UP", content: "ok" });
    expect((await json("GET", "/tools")).map((t: any) => t.id).sort()).toEqual(before.tools);
    expect(await json("GET", "/chatflows")).toHaveLength(before.flows);
  });
});

const BAD_IDS = [
  "not-a-uuid",
  "12345",
  "0b6f2c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5",
  "0b6f2c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b0",
  "0b6f2c1e3a4d4e5f8a9b0c1d2e3f4a5b",
  "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz",
  "%20",
  "%00",
  "..%2F..%2Fetc",
  "'%20OR%201=1--",
  "x".repeat(3000),
];

// [method, path with {id}, body to send (valid apart from the id)]
const idEndpoints: [string, string, (() => unknown)?][] = [
  ["GET", "/tools/{id}"],
  ["PUT", "/tools/{id}", () => ({ name: "t" })],
  ["DELETE", "/tools/{id}"],
  ["GET", "/chatflows/{id}"],
  ["PUT", "/chatflows/{id}", () => ({ name: "f" })],
  ["DELETE", "/chatflows/{id}"],
  ["GET", "/assistants/{id}"],
  ["PUT", "/assistants/{id}", () => ({ iconSrc: "i" })],
  ["DELETE", "/assistants/{id}"],
  ["GET", "/apikey/{id}"],
  ["PUT", "/apikey/{id}", () => ({ keyName: "k" })],
  ["DELETE", "/apikey/{id}"],
  ["PUT", "/variables/{id}", () => ({ value: "v" })],
  ["DELETE", "/variables/{id}"],
  ["GET", "/credentials/{id}"],
  ["PUT", "/credentials/{id}", () => ({ name: "c" })],
  ["DELETE", "/credentials/{id}"],
  ["GET", "/leads/{id}"],
  ["GET", "/chatmessage/{id}"],
  ["DELETE", "/chatmessage/{id}"],
  ["GET", "/feedback/{id}"],
  ["PUT", "/feedback/{id}", () => ({ content: "c" })],
  ["POST", "/feedback/{id}", () => ({ messageId: uuid(), rating: "THUMBS_UP" })],
  ["GET", "/upsert-history/{id}"],
];

describe("malformed path ids on every endpoint that takes one", () => {
  it.each(idEndpoints)("%s %s", async (method, template, body) => {
    for (const bad of BAD_IDS) {
      const res = await call(method, template.replace("{id}", bad), { body: body?.() });
      // A non-UUID id is 400; an id that does not even route (an encoded slash) may be 404.
      await expectStatus(res, bad.includes("%2F") ? null : 400, `${method} ${template} id=${bad.slice(0, 40)}`);
    }
    // A well-formed id that names nothing is 404.
    await expectStatus(await call(method, template.replace("{id}", uuid()), { body: body?.() }), 404, `${method} ${template} unknown id`);
  });

  it("GET /chatflows/apikey/{apikey} refuses unknown and oversize keys", async () => {
    await expectStatus(await call("GET", "/chatflows/apikey/unknown-key-unknown-key"), 401, "unknown key");
    await expectStatus(await call("GET", `/chatflows/apikey/${"k".repeat(300)}`), null, "oversize key");
    await expectStatus(await call("GET", "/chatflows/apikey/%00"), null, "nul key");
  });
});

// [path, bad query strings]
const queryCases: [string, string, string[]][] = [
  [
    "GET",
    "/tools",
    [
      "page=0",
      "limit=abc",
      "page=-1",
      "limit=0",
      "page=1.5",
      "limit=1e3",
      "limit=1001",
      "page=abc&limit=2",
      "page=1&page=2",
      "page=99999999999",
    ],
  ],
  ["GET", "/chatflows", ["type=SIDEWAYS", "type=chatflow", "page=0", "limit=abc", "type=CHATFLOW&type=AGENTFLOW"]],
  ["GET", "/assistants", ["page=0", "limit=abc"]],
  ["GET", "/apikey", ["page=0", "limit=abc"]],
  ["GET", "/variables", ["page=0", "limit=abc"]],
  ["GET", "/credentials", ["page=0", "limit=abc", `credentialName=${"c".repeat(3000)}`]],
  [
    "GET",
    "/chatmessage/{flow}",
    [
      "order=sideways",
      "order=",
      "feedback=yes",
      "feedback=1",
      "feedback=TRUE",
      "startDate=notadate",
      "endDate=notadate",
      "startDate=2026",
      "startDate=2026-13-45",
      "endDate=tomorrow",
      "chatType=PUBLIC",
      "feedbackType=MEH",
      "feedbackType=thumbs_up",
      "feedback=true&feedbackType=LIKE",
      `chatId=${"c".repeat(3000)}`,
      `sessionId=${"s".repeat(3000)}`,
    ],
  ],
  [
    "DELETE",
    "/chatmessage/{flow}",
    ["hardDelete=yes", "hardDelete=1", "startDate=notadate", "endDate=13/01/2026", "chatType=BOTH", "feedbackType=MEH"],
  ],
  [
    "GET",
    "/feedback/{flow}",
    ["sortOrder=sideways", "order=sideways", "startDate=notadate", "endDate=yesterday", `chatId=${"c".repeat(3000)}`],
  ],
  ["GET", "/upsert-history/{flow}", ["order=sideways", "startDate=notadate", "endDate=2026-99-01"]],
];

describe("bad query values on every endpoint that takes them", () => {
  it.each(queryCases)("%s %s", async (method, template, queries) => {
    const path = template.replace("{flow}", ids.flow);
    for (const q of queries) await expectStatus(await call(method, `${path}?${q}`), 400, `${method} ${template}?${q.slice(0, 40)}`);
    // Nothing was deleted by a refused DELETE.
    expect(await json("GET", `/chatmessage/${ids.flow}`)).toHaveLength(2);
  });

  it("unknown query parameters are ignored, valid ones work", async () => {
    expect(Array.isArray(await json("GET", "/tools?unknown=1&foo=bar"))).toBe(true);
    expect(
      await json(
        "GET",
        `/chatmessage/${ids.flow}?order=desc&feedback=false&startDate=2026-01-01&endDate=2026-01-01T23:59:59.999Z&whatever=x`,
      ),
    ).toHaveLength(2);
    expect(await json("GET", `/feedback/${ids.flow}?sortOrder=DESC&order=asc`)).toHaveLength(1);
    expect(await json("GET", `/upsert-history/${ids.flow}?order=asc`)).toEqual([]);
  });
});

describe("deeply nested JSON where any value is allowed", () => {
  it("is stored or refused with a 4xx, never a 500", async () => {
    for (const depth of [1000, 100_000]) {
      const deep = JSON.parse(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`);
      const answers = [
        await call("POST", "/assistants", { body: { details: { name: "deep", extra: deep } } }),
        await call("PUT", `/assistants/${ids.assistant}`, { body: { details: { name: "a", extra: deep } } }),
        await call("POST", "/credentials", { body: { name: "deep", credentialName: "x", plainDataObj: { k: deep } } }),
        await call("PUT", `/credentials/${ids.credential}`, { body: { plainDataObj: { k: deep } } }),
      ];
      for (const res of answers) {
        if (res.status === 200) await res.arrayBuffer();
        else await expectClientError(res, `depth ${depth}`);
      }
    }
    // Put the fixtures back as they were.
    await json("PUT", `/assistants/${ids.assistant}`, { body: { details: { name: "a" } } });
  });
});

describe("odd strings are stored as given, never a 500", () => {
  it("control characters, lone surrogates, emoji and SQL-looking text round-trip", async () => {
    for (const name of ["a\u0000b", "\ud800", "😀 ünïcödé", "'; DROP TABLE tool; --", "<script>alert(1)</script>", "\\u0000"]) {
      const res = await call("POST", "/tools", { body: { name } });
      if (res.status === 200) {
        const tool = await res.json<any>();
        expect((await json("GET", `/tools/${tool.id}`)).name).toBe(tool.name);
        await json("DELETE", `/tools/${tool.id}`);
      } else {
        await expectClientError(res, `name ${JSON.stringify(name)}`);
      }
    }
  });
});
