// Issue 8, point 1: a runtime variable must not read the worker's secrets or bindings. The attack:
// POST /variables {name: "ADMIN_API_KEY", type: "runtime"}, then read it back through a custom
// tool's $vars or a prompt's {{$vars.…}} sent to a model. Only names RUNTIME_VARS lists are read,
// and the worker's secrets never, even when listed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callOf, customToolNode, toolAgentFlow } from "../engine/agents-flows";
import { json } from "../helpers";
import { openAICredential, saveChain, setVars, standinRequests } from "./helpers";

const SECRETS = ["test-admin-key", "test-jwt-secret", "test-credential-key"];
const NAMES = ["ADMIN_API_KEY", "JWT_SECRET", "CREDENTIAL_ENCRYPTION_KEY", "DB", "FILES", "EDGEFLOW_GREETING", "EDGEFLOW_UNLISTED"];

let restore: () => void;
beforeAll(async () => {
  // The deployer lists the secrets and a binding too: listing must not make them readable.
  restore = setVars({
    RUNTIME_VARS: "EDGEFLOW_GREETING, ADMIN_API_KEY, JWT_SECRET, CREDENTIAL_ENCRYPTION_KEY, DB, FILES",
    EDGEFLOW_GREETING: "hello-from-the-deployment",
    EDGEFLOW_UNLISTED: "unlisted-deployment-value",
  });
  for (const name of NAMES) await json("POST", "/variables", { body: { name, type: "runtime" } });
});
afterAll(() => restore());

describe("runtime variables read only what the deployment lists, never its secrets", () => {
  it("a custom tool's $vars: the listed variable only; secrets, bindings and unlisted names are absent", async () => {
    const func = `return JSON.stringify(Object.fromEntries(${JSON.stringify(NAMES)}.map((n) => [n, $vars[n] === undefined ? null : typeof $vars[n] === "string" ? $vars[n] : typeof $vars[n]])))`;
    const tool = await json("POST", "/tools", { body: { name: "read_vars", description: "reads variables", func } });
    const credential = await openAICredential("sk-test");
    const flowData = toolAgentFlow({ credential, nodes: [customToolNode("customTool_0", tool.id)] });
    const { id } = await json("POST", "/chatflows", { body: { name: "agent", flowData } });

    const res = await json("POST", `/prediction/${id}`, { body: { question: callOf("read_vars", {}) } });
    expect(JSON.parse(res.usedTools[0].toolOutput)).toEqual({
      ADMIN_API_KEY: null,
      JWT_SECRET: null,
      CREDENTIAL_ENCRYPTION_KEY: null,
      DB: null,
      FILES: null,
      EDGEFLOW_GREETING: "hello-from-the-deployment",
      EDGEFLOW_UNLISTED: null,
    });
    for (const secret of SECRETS) expect(JSON.stringify(res)).not.toContain(secret);
  });

  it("a prompt's {{$vars.…}}: the model receives the listed value, never a secret", async () => {
    const marker = crypto.randomUUID();
    const template = `${marker} {{$vars.ADMIN_API_KEY}} {{$vars.JWT_SECRET}} {{$vars.CREDENTIAL_ENCRYPTION_KEY}} {{$vars.DB}} {{$vars.EDGEFLOW_UNLISTED}} greeting={{$vars.EDGEFLOW_GREETING}} {product}`;
    const id = await saveChain({ template, credential: await openAICredential("sk-test") });
    const answer = await json("POST", `/prediction/${id}`, { body: { question: "q" } });

    const [sent] = await standinRequests(marker);
    const prompt = JSON.stringify(sent.body.messages);
    expect(prompt).toContain("greeting=hello-from-the-deployment");
    for (const secret of [...SECRETS, "unlisted-deployment-value"]) {
      expect(prompt).not.toContain(secret);
      expect(answer.text).not.toContain(secret);
    }
  });

  it("without RUNTIME_VARS no environment variable is read", async () => {
    const undo = setVars({ RUNTIME_VARS: "" });
    try {
      const marker = crypto.randomUUID();
      const id = await saveChain({
        template: `${marker} greeting={{$vars.EDGEFLOW_GREETING}} {product}`,
        credential: await openAICredential("sk-test"),
      });
      await json("POST", `/prediction/${id}`, { body: { question: "q" } });
      const [sent] = await standinRequests(marker);
      expect(JSON.stringify(sent.body.messages)).not.toContain("hello-from-the-deployment");
    } finally {
      undo();
    }
  });
});
