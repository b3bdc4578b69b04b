// The lookups a prediction makes before its model call (src/services/runs/lookups.ts): one
// D1 batch that reads the flow, only the stored variables its flowData names, and its credentials.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { lookUpRun } from "../../src/services/runs/lookups";
import type { Env } from "../../src/env";
import { json } from "../helpers";
import { credential, db } from "../engine/helpers";

const tag = () => crypto.randomUUID().slice(0, 8).replace(/-/g, "");

async function storeVariable(name: string, value: string) {
  await json("POST", "/variables", { body: { name, value, type: "static" } });
}

describe("lookUpRun", () => {
  it("reads the variables the flowData names ($vars.<name>), not the rest of the table", async () => {
    const t = tag();
    await storeVariable(`named_${t}`, "in the flow");
    await storeVariable(`other_${t}`, "not in the flow");
    const credentialId = await credential("openAIApi", { openAIApiKey: `sk-${t}` });
    const flowData = JSON.stringify({
      nodes: [
        {
          id: "chatOpenAI_0",
          data: { id: "chatOpenAI_0", name: "chatOpenAI", credential: credentialId, inputs: { systemMessage: `Use {{$vars.named_${t}}}` } },
        },
      ],
      edges: [],
    });
    const { id } = await json("POST", "/chatflows", { body: { name: `lookups ${t}`, flowData } });

    const lookups = lookUpRun({ db: db(), env: env as unknown as Env }, id);
    const flow = await lookups.flow;
    expect(flow).toMatchObject({ id, name: `lookups ${t}`, flowData, deployed: false, isPublic: false, type: "CHATFLOW" });
    const { vars, getCredential } = await lookups.prefetched;
    expect(vars[`named_${t}`]).toBe("in the flow");
    expect(vars).not.toHaveProperty(`other_${t}`);
    expect(await getCredential(credentialId)).toEqual({ openAIApiKey: `sk-${t}` });
  });

  it("an id that names no chatflow is a 404 once the flow is awaited", async () => {
    const lookups = lookUpRun({ db: db(), env: env as unknown as Env }, crypto.randomUUID());
    await expect(lookups.flow).rejects.toMatchObject({ status: 404 });
  });
});
