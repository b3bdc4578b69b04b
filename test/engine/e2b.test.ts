// codeInterpreterE2B in an agentflow's Agent node through POST /prediction: the scripted stand-in model calls
// `code_interpreter` with Python; the E2B stand-in (test/standin/e2b.mjs) receives the sandbox's creation
// (X-API-KEY, template), the execute call with the model's code and the sandbox's deletion; the model reads
// Flowise's answer (the main result's text, else stdout; a Python error as "<name>: <value>"); a chart's PNG
// is stored as the chat's file and listed in the answer's artifacts. Then a refused key (no key in the
// answer) and E2B's URL vars on private addresses (400).
import { afterEach, describe, expect, inject, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { afEdge, afNode, messagesOf, modelConfig, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { setVars } from "../security/helpers";
import { callOf } from "./agents-flows";
import { credential, marker } from "./helpers";

const e2b = () => inject("e2bUrl");

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

const vars = (extra: Record<string, string> = {}) => {
  restore = setVars({ E2B_API_URL: e2b(), E2B_SANDBOX_URL: `${e2b()}/{port}-{sandboxId}`, ...extra });
};

type Received = { method: string; path: string; headers: Record<string, string>; body: any };
const received = async (key: string): Promise<Received[]> =>
  (await fetch(`${e2b()}/requests?contains=${encodeURIComponent(`#key=${key}`)}`)).json();

/** Start → Agent (the stand-in model) with codeInterpreterE2B, saved with an E2BApi credential holding `key`. */
async function saveAgent(key: string, config: Record<string, unknown> = {}): Promise<string> {
  const openai = await openAICredential();
  const cred = await credential("E2BApi", { e2bApiKey: key });
  const agent = afNode("agentAgentflow_0", "Agent 0", {
    agentModel: "chatOpenAI",
    agentModelConfig: modelConfig(openai, { streaming: false }),
    agentMessages: [],
    agentTools: [{ agentSelectedTool: "codeInterpreterE2B", agentSelectedToolConfig: { FLOWISE_CREDENTIAL_ID: cred, ...config } }],
  });
  return (await saveAgentflowOf([start(), agent], [afEdge("startAgentflow_0", "agentAgentflow_0")])).id;
}

const ask = (id: string, code: string, tool = "code_interpreter") =>
  json("POST", `/prediction/${id}`, { body: { question: `Run it ${callOf(tool, { input: code })}` } });

describe("codeInterpreterE2B in an Agent node through POST /prediction", () => {
  it("creates a sandbox, executes the model's code, kills the sandbox; the main result reaches the model", async () => {
    vars();
    const key = `e2b_${marker()}`;
    const id = await saveAgent(key);
    const code = 'print("hello")\nprint(2 + 3)\n6 * 7';
    const answer = await ask(id, code);
    expect(answer.text).toBe("tools said: 42");
    const [create, execute, kill, ...more] = await received(key);
    expect(more).toEqual([]);
    expect(create).toMatchObject({ method: "POST", path: "/sandboxes" });
    expect(create.headers["x-api-key"]).toBe(key);
    expect(create.body).toEqual({ templateID: "code-interpreter-v1", timeout: 300, autoPause: false, allow_internet_access: true });
    const sandbox = /^i\w+$/.exec(execute.path.split("/")[1].replace("49999-", ""))?.[0];
    expect(execute).toMatchObject({ method: "POST", path: `/49999-${sandbox}/execute`, body: { code, language: "python" } });
    expect(execute.headers["x-api-key"]).toBeUndefined();
    expect(kill).toMatchObject({ method: "DELETE", path: `/sandboxes/${sandbox}` });
    expect(kill.headers["x-api-key"]).toBe(key);
  });

  it("without a final expression the model reads stdout, joined by newlines as Flowise joins it; toolName renames it", async () => {
    vars();
    const key = `e2b_${marker()}`;
    const id = await saveAgent(key, { toolName: "run_python" });
    const answer = await ask(id, 'print("one")\nprint("two")', "run_python");
    expect(answer.text).toBe("tools said: one\n\ntwo\n");
    expect((await received(key)).map((r) => r.method)).toEqual(["POST", "POST", "DELETE"]);
  });

  it("a Python error is the tool's answer as '<name>: <value>'; the sandbox is still killed", async () => {
    vars();
    const key = `e2b_${marker()}`;
    const id = await saveAgent(key);
    const answer = await ask(id, 'print("before")\nraise ValueError("bad input")');
    expect(answer.text).toBe("tools said: ValueError: bad input");
    expect((await received(key)).map((r) => `${r.method} ${r.path.replace(/i\w+/, "<id>")}`)).toEqual([
      "POST /sandboxes",
      "POST /49999-<id>/execute",
      "DELETE /sandboxes/<id>",
    ]);
  });

  it("a chart's PNG is stored as the chat's file and kept in the message's artifacts; the model reads only the text", async () => {
    vars();
    const key = `e2b_${marker()}`;
    const id = await saveAgent(key);
    const answer = await ask(id, "import matplotlib.pyplot as plt\nplt.show()\n1 + 1");
    expect(answer.text).toBe("tools said: 2");
    const [message] = (await messagesOf(id)).filter((m) => m.role === "apiMessage");
    const artifacts = typeof message.artifacts === "string" ? JSON.parse(message.artifacts) : message.artifacts;
    expect(artifacts).toEqual([{ type: "png", data: expect.stringMatching(/^FILE-STORAGE::artifact_\d+\.png$/) }]);
    const fileName = artifacts[0].data.replace("FILE-STORAGE::", "");
    const res = await call("GET", `/get-upload-file?chatflowId=${id}&chatId=${answer.chatId}&fileName=${fileName}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect([...new Uint8Array(await res.arrayBuffer()).slice(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
  });

  it("a refused key: the model reads E2B's message without the key; no sandbox is made", async () => {
    vars();
    const key = `e2b_revoked_${marker()}`;
    const id = await saveAgent(key);
    const answer = await ask(id, "1 + 1");
    expect(answer.text).toBe("tools said: Error: E2B answered 401: Invalid API key");
    expect(JSON.stringify(answer)).not.toContain(key);
    expect((await received(key)).map((r) => r.method)).toEqual(["POST"]);
  });

  it("E2B_API_URL or E2B_SANDBOX_URL on a private address is a 400 naming the var; nothing is sent", async () => {
    for (const [name, value] of [
      ["E2B_API_URL", "http://10.7.7.7"],
      ["E2B_SANDBOX_URL", "http://10.7.7.8/{port}-{sandboxId}"],
    ]) {
      // The stand-in model on loopback stays reachable; E2B's var is what is refused.
      vars({ ENVIRONMENT: "production", OUTBOUND_ALLOW: "127.0.0.1", [name]: value });
      const key = `e2b_${marker()}`;
      const id = await saveAgent(key);
      const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi" } }), 400);
      expect(err.message).toMatch(new RegExp(`${name} refused by the outbound policy: 10\\.7\\.7\\.\\d is a private address`));
      expect(await received(key)).toEqual([]);
      restore?.();
      restore = undefined;
    }
  });
});
