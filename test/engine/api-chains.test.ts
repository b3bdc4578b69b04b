// The API chains (getApiChain, postApiChain, openApiChain) in chatflows run through POST /prediction
// with the scripted OpenAI stand-in (`[api: … :api]` is what it writes for the URL prompts, `[call NAME
// {json}]` its function call) against the weather API of test/standin/jira.mjs: the prompts the model
// got (LangChain's), the request the API received (URL, headers, body), the answer; then the refusals:
// a URL the documentation does not name, a private address, what the model wrote not being a URL.
import { afterEach, describe, expect, inject, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { setVars } from "../security/helpers";
import { marker, requestsWith } from "./helpers";
import { flow, ref, standinModel } from "./retrieval-flows";

const api = () => inject("jiraUrl");

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

type Received = { method: string; path: string; query: Record<string, string>; headers: Record<string, string | null>; body: any };
const received = async (contains: string): Promise<Received[]> =>
  ((await (await fetch(`${api()}/requests?contains=${encodeURIComponent(contains)}`)).json()) as Received[]).filter((r) =>
    r.path.startsWith("/weather/v1"),
  );

const docs = () =>
  `BASE URL: ${api()}/weather\n\nAPI Documentation\nGET /v1/forecast?city=CITY&days=N answers the forecast as JSON.\n` +
  "POST /v1/report with a JSON body {city, sky} stores what was seen.";

async function save(name: string, inputs: Record<string, unknown>): Promise<string> {
  restore ??= setVars({ OUTBOUND_ALLOW: new URL(api()).host });
  const flowData = flow([standinModel(), ["chain_0", name, "Chains", { model: ref("model_0"), ...inputs }]] as never);
  return (await json("POST", "/chatflows", { body: { name: `api chain ${name}`, flowData } })).id;
}

const predict = (id: string, question: string) => call("POST", `/prediction/${id}`, { body: { question } });
const chatRequests = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));

describe("getApiChain", () => {
  it("the model writes the URL from the docs, the API is called with the node's headers, the model answers from its response", async () => {
    const id = await save("getApiChain", { apiDocs: docs(), headers: '{"X-Weather-Key": "wk-secret-123"}' });
    const m = marker();
    const url = `${api()}/weather/v1/forecast?city=${m}&days=2`;
    const question = `Weather in ${m}? [api: ${url} :api]`;
    const res = await predict(id, question);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { text: string };
    const response = JSON.stringify({ city: m, days: 2, forecast: `sunny in ${m}`, token: "wk-secret-123" });
    expect(body.text).toBe(`echo: Given this ${response} response for ${url}. use the given response to answer this ${question}`);
    const [req, ...more] = await received(m);
    expect(more).toHaveLength(0);
    expect(req).toMatchObject({ method: "GET", path: "/weather/v1/forecast", query: { city: m, days: "2" } });
    const [first] = await chatRequests(m);
    const urlPrompt = (first.body as { messages: Array<{ content: string }> }).messages[0].content;
    expect(urlPrompt).toBe(
      `You are given the below API Documentation:\n${docs()}\nUsing this documentation, generate the full API url to call for answering ` +
        "the user question.\nYou should build the API url in order to get a response that is as short as possible, while still getting " +
        "the necessary information to answer the question. Pay attention to deliberately exclude any unnecessary pieces of data in the " +
        `API call.\n\nQuestion:${question}\nAPI url:`,
    );
  });

  it("custom prompts: urlPrompt and ansPrompt with their variables", async () => {
    const id = await save("getApiChain", {
      apiDocs: docs(),
      urlPrompt: "Docs: {api_docs}\nQ: {question}\nAPI url:",
      ansPrompt: "Reply {api_response} to {question}",
    });
    const m = marker();
    const question = `[api: ${api()}/weather/v1/forecast?city=${m} :api]`;
    const body = (await (await predict(id, question)).json()) as { text: string };
    expect(body.text).toBe(`echo: Reply ${JSON.stringify({ city: m, days: 1, forecast: `sunny in ${m}`, token: null })} to ${question}`);
  });

  it("a URL on a host the docs do not name, a private address, or no URL at all: refused before anything is sent", async () => {
    const id = await save("getApiChain", { apiDocs: docs() });
    const m = marker();
    const off = await expectError(await predict(id, `${m} [api: https://example.org/steal?${m} :api]`), 400);
    expect(off.message).toBe(
      `chain_0: the model asked for https://example.org, which the API documentation does not name (${new URL(api()).origin})`,
    );
    const priv = await expectError(await predict(id, `${m} [api: http://10.0.0.7/weather/v1/forecast :api]`), 400);
    expect(priv.message).toMatch(/^Outbound request refused: 10\.0\.0\.7 is a private address/);
    const text = await expectError(await predict(id, `${m} no url here`), 502);
    expect(text.message).toMatch(/^chain_0: the model did not write a URL to call \(it wrote: echo: You are given/);
    expect(await received(m)).toHaveLength(0);
  });
});

describe("postApiChain", () => {
  it("the model writes {url, data}, the data is POSTed as JSON, the model summarises the response", async () => {
    const id = await save("postApiChain", { apiDocs: docs(), headers: { "X-Weather-Key": "wk-post" } });
    const m = marker();
    const written = JSON.stringify({ url: `${api()}/weather/v1/report`, data: { city: m, sky: "clear" } });
    const question = `Report clear sky in ${m} [api: ${written} :api]`;
    const body = (await (await predict(id, question)).json()) as { text: string };
    const [req] = await received(m);
    expect(req).toMatchObject({ method: "POST", path: "/weather/v1/report", body: { city: m, sky: "clear" } });
    expect(req.headers["content-type"]).toBe("application/json");
    const response = JSON.stringify({ stored: { city: m, sky: "clear" }, token: "wk-post" });
    expect(body.text.startsWith(`echo: You are given the below API Documentation:\n${docs()}\n`)).toBe(true);
    expect(body.text).toContain(`Question:${question}\njson string: ${written}\n\nHere is the response from the API:\n\n${response}\n\n`);
    expect(body.text.endsWith("Summarize this response to answer the original question.\n\nSummary:")).toBe(true);
  });

  it("what the model wrote is not the JSON {url, data}: a 502 saying so, nothing sent", async () => {
    const id = await save("postApiChain", { apiDocs: docs() });
    const m = marker();
    const err = await expectError(await predict(id, `${m} [api: just text ${m} :api]`), 502);
    expect(err.message).toBe(`chain_0: the model did not write the JSON {"url", "data"} to POST (it wrote: just text ${m})`);
    expect(await received(m)).toHaveLength(0);
  });

  it("no API documentation is a 400", async () => {
    const id = await save("postApiChain", {});
    const err = await expectError(await predict(id, "hi"), 400);
    expect(err.message).toContain("needs its API Documentation (apiDocs)");
  });
});

describe("openApiChain", () => {
  it("yamlLink: the spec's operations as functions, the model calls one, the API's answer is the chain's", async () => {
    const id = await save("openApiChain", { yamlLink: `${api()}/weather/openapi.yaml`, headers: '{"X-Weather-Key": "wk-open"}' });
    const m = marker();
    const res = await predict(id, `Forecast ${m} [call getForecast {"QueryParameters": {"city": "${m}", "days": 3}}]`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { text: string };
    expect(JSON.parse(body.text)).toEqual({ city: m, days: 3, forecast: `sunny in ${m}`, token: "wk-open" });
    const [req] = await received(m);
    expect(req).toMatchObject({ method: "GET", path: "/weather/v1/forecast", query: { city: m, days: "3" } });
    const [model] = await chatRequests(m);
    const sent = model.body as unknown as { messages: Array<{ content: string }>; tools: Array<{ function: { name: string } }> };
    expect(sent.messages[0].content).toBe(
      `Use the provided API's to respond to this user query:\n\nForecast ${m} [call getForecast {"QueryParameters": {"city": "${m}", "days": 3}}]`,
    );
    expect(sent.tools.map((t) => t.function.name).sort()).toEqual(["getForecast", "postReport"]);
  });

  it("yamlFile (a data URI): a POST operation with its JSON body", async () => {
    const text = await (await fetch(`${api()}/weather/openapi.yaml`)).text();
    const yamlFile = `data:application/x-yaml;base64,${btoa(text)},filename:weather.yaml`;
    const id = await save("openApiChain", { yamlFile });
    const m = marker();
    const body = (await (await predict(id, `Report ${m} [call postReport {"RequestBody": {"city": "${m}", "sky": "grey"}}]`)).json()) as {
      text: string;
    };
    expect(JSON.parse(body.text)).toEqual({ stored: { city: m, sky: "grey" }, token: null });
  });

  it("a private yamlLink or a spec whose server is private: 400s; no spec: 400", async () => {
    const link = await save("openApiChain", { yamlLink: "http://192.168.4.4/openapi.yaml" });
    expect((await expectError(await predict(link, "hi"), 400)).message).toMatch(/^Outbound request refused: 192\.168\.4\.4 is a private/);
    const text = (await (await fetch(`${api()}/weather/openapi.yaml`)).text()).replace(
      /url: http:\/\/[^\n]+/,
      "url: http://10.4.4.4/weather",
    );
    const privateServer = await save("openApiChain", { yamlFile: text });
    expect((await expectError(await predict(privateServer, "hi"), 400)).message).toMatch(/^Outbound request refused: 10\.4\.4\.4/);
    const none = await save("openApiChain", {});
    expect((await expectError(await predict(none, "hi"), 400)).message).toContain("needs an OpenAPI spec");
  });
});
