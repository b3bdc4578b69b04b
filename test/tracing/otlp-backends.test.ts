// A chatflow's `analytic` entries arize, phoenix and opik (Flowise's Analyse Chatflow dialog) send each
// run's trace as OTLP/HTTP protobuf with OpenInference's attributes, as Flowise's tracers do, to
// loopback stand-ins that decode the protobuf: the headers each backend needs, the project on the
// resource, the run as a CHAIN with LLM and TOOL spans under it (model, messages, token counts), and
// session.id = the chatId on every span.
import { afterEach, describe, expect, it, vi } from "vitest";
import { callOf } from "../engine/agents-flows";
import { json } from "../helpers";
import { attrs, one, credential, marker, receivedWith, toolAgentFlow, tracingUrl } from "./helpers";

afterEach(() => vi.restoreAllMocks());

const ARIZE = { arizeApiKey: "ak-arize-standin-key-11", arizeSpaceId: "U3BhY2U6standin" };
const PHOENIX_KEY = "phx-standin-key-22";
const OPIK_KEY = "opik-standin-key-33";

const PATHS = { arize: "/arize/v1/traces", phoenix: "/phoenix/v1/traces", opik: "/opik/v1/private/otel/v1/traces" };

/** Arize, Phoenix and Opik on (or as `status` says), at their prefixes of the tracing stand-in (or `at`'s URLs). */
async function openInferenceAnalytic(over: { status?: boolean; at?: Partial<Record<keyof typeof PATHS, string>> } = {}) {
  const base = tracingUrl();
  const arize = await credential("arizeApi", { ...ARIZE, arizeEndpoint: over.at?.arize ?? `${base}/arize` });
  const phoenix = await credential("phoenixApi", { phoenixApiKey: PHOENIX_KEY, phoenixEndpoint: over.at?.phoenix ?? `${base}/phoenix/` });
  const opik = await credential("opikApi", { opikApiKey: OPIK_KEY, opikUrl: over.at?.opik ?? `${base}/opik`, opikWorkspace: "team-ws" });
  const status = over.status ?? true;
  return JSON.stringify({
    arize: { credentialId: arize, status, projectName: "arize-proj" },
    phoenix: { credentialId: phoenix, status, projectName: "phoenix-proj" },
    opik: { credentialId: opik, status, opikProjectName: "opik-proj" },
  });
}

describe("a chatflow's trace reaches Arize, Phoenix and Opik as OTLP protobuf", () => {
  it("headers, the project, CHAIN/LLM/TOOL spans with model, messages, token counts, session.id = chatId", async () => {
    const id = await toolAgentFlow({ analytic: await openInferenceAnalytic() });
    const m = marker();
    const question = `What is 2+2? ${m} ${callOf("calculator", { input: "2+2" })}`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(answer.text).toBe("tools said: 4");
    const got = await receivedWith(m, 3);

    const arize = one(got, PATHS.arize);
    expect(arize.headers).toMatchObject({ api_key: ARIZE.arizeApiKey, space_id: ARIZE.arizeSpaceId });
    const phoenix = one(got, PATHS.phoenix);
    expect(phoenix.headers).toMatchObject({ api_key: PHOENIX_KEY, authorization: `Bearer ${PHOENIX_KEY}` });
    const opik = one(got, PATHS.opik);
    expect(opik.headers).toMatchObject({ authorization: OPIK_KEY, projectname: "opik-proj", "comet-workspace": "team-ws" });

    for (const [r, project] of [
      [arize, "arize-proj"],
      [phoenix, "phoenix-proj"],
      [opik, "opik-proj"],
    ] as const) {
      expect(r.headers["content-type"]).toBe("application/x-protobuf");
      const [resourceSpans] = r.body.resourceSpans;
      const resource = attrs(resourceSpans.resource);
      expect(resource).toMatchObject({ "service.name": project, "service.version": "1.0.0", "openinference.project.name": project });
      if (r === arize) expect(resource.model_id).toBe(project);
      else expect(resource.model_id).toBeUndefined();

      const spans = resourceSpans.scopeSpans[0].spans as any[];
      const all = spans.map((s) => ({ ...s, a: attrs(s) }));
      for (const s of all) {
        expect(s.a["session.id"]).toBe(answer.chatId);
        expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano));
      }
      const root = all[0];
      expect(root.parentSpanId).toBeUndefined();
      expect(root.a).toMatchObject({ "openinference.span.kind": "CHAIN", "input.value": question, "output.value": "tools said: 4" });
      const ids = new Set(all.map((s) => s.spanId));
      for (const s of all.slice(1)) expect(ids.has(s.parentSpanId)).toBe(true);

      const llms = all.filter((s) => s.a["openinference.span.kind"] === "LLM");
      expect(llms).toHaveLength(2);
      for (const s of llms) {
        expect(s.a["llm.model_name"]).toBe("gpt-standin");
        const inputs = Object.entries(s.a).filter(([k]) => /^llm\.input_messages\.\d+\.message\.content$/.test(k));
        expect(inputs.some(([, v]) => String(v).includes(m))).toBe(true);
        expect(s.a["input.mime_type"]).toBe("application/json");
      }
      expect(llms[0].a["llm.output_messages.0.message.tool_calls.0.tool_call.function.name"]).toBe("calculator");
      expect(llms[1].a).toMatchObject({
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "tools said: 4",
        "llm.token_count.prompt": "1",
        "llm.token_count.completion": "1",
      });
      const tool = all.find((s) => s.a["openinference.span.kind"] === "TOOL");
      expect(tool.name).toBe("calculator");
      expect(tool.a).toMatchObject({ "tool.name": "calculator", "output.value": "4" });
      expect(JSON.parse(tool.a["tool.parameters"])).toEqual({ input: "2+2" });
    }
  });

  it("entries with status false send nothing", async () => {
    const id = await toolAgentFlow({ analytic: await openInferenceAnalytic({ status: false }) });
    const m = marker();
    expect((await json("POST", `/prediction/${id}`, { body: { question: `plain ${m}` } })).text).toBe(`echo: plain ${m}`);
    expect(await receivedWith(m, 1, 400)).toEqual([]);
  });

  it("a private endpoint is refused by the outbound policy, logged without the key; the run is untouched", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const at = { arize: "http://169.254.169.254/latest", phoenix: "http://10.1.2.3:6006", opik: "http://192.168.0.9/api" };
    const id = await toolAgentFlow({ analytic: await openInferenceAnalytic({ at }) });
    const m = marker();
    expect((await json("POST", `/prediction/${id}`, { body: { question: `policy ${m}` } })).text).toBe(`echo: policy ${m}`);
    await vi.waitFor(
      () => {
        for (const kind of Object.keys(PATHS))
          expect(
            logged.mock.calls.some(
              ([l]) => String(l).startsWith(`[tracing] ${kind}`) && String(l).includes("refused by the outbound policy"),
            ),
          ).toBe(true);
      },
      { timeout: 5000 },
    );
    expect(await receivedWith(m, 1, 300)).toEqual([]);
    for (const [line] of logged.mock.calls)
      for (const key of [ARIZE.arizeApiKey, PHOENIX_KEY, OPIK_KEY]) expect(String(line)).not.toContain(key);
  });
});

describe("the studio's Analyse Chatflow dialog", () => {
  it("can make Flowise's arizeApi, phoenixApi and opikApi credentials, with their fields", async () => {
    const fields = async (name: string) =>
      (await json<{ inputs: Array<{ name: string; default?: string }> }>("GET", `/components-credentials/${name}`)).inputs;
    expect((await fields("arizeApi")).map((i) => [i.name, i.default])).toEqual([
      ["arizeApiKey", undefined],
      ["arizeSpaceId", undefined],
      ["arizeEndpoint", "https://otlp.arize.com"],
    ]);
    expect((await fields("phoenixApi")).map((i) => [i.name, i.default])).toEqual([
      ["phoenixApiKey", undefined],
      ["phoenixEndpoint", "https://app.phoenix.arize.com"],
    ]);
    expect((await fields("opikApi")).map((i) => i.name)).toEqual(["opikApiKey", "opikUrl", "opikWorkspace"]);
  });
});
