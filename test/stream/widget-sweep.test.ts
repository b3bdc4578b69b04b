// What Flowise's chat widget (flowise-embed 3.1.6) reads before its first message, found by driving it
// in Chromium: `/public-chatbotConfig` must carry the flow's `flowData` (the widget finds an agentflow's
// Start node there and, in form mode, shows its form instead of the text box — without it a form-input
// agentflow could not be used from the widget at all), stripped as public endpoints strip it; and, as
// Flowise, it keeps the chatflow's origin rules to itself.
import { describe, expect, it } from "vitest";
import { afEdge } from "../agentflow-api/flows";
import { call, json } from "../helpers";

const afNode = (id: string, inputs: Record<string, unknown>, credential?: string) => ({
  id,
  type: "agentFlow",
  position: { x: 0, y: 0 },
  data: { id, name: id.replace(/_\d+$/, ""), label: id, category: "Agent Flows", inputs, ...(credential ? { credential } : {}) },
});

const formInputTypes = [{ type: "string", label: "Item", name: "item" }];

async function formAgentflow(extra: Record<string, unknown> = {}) {
  const flowData = JSON.stringify({
    nodes: [
      afNode("startAgentflow_0", { startInputType: "formInput", formTitle: "Order form", formDescription: "What to send", formInputTypes }),
      afNode("directReplyAgentflow_0", { directReplyMessage: "Ordered {{ $form.item }}." }, "cred-should-not-leak"),
    ],
    edges: [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
  });
  return json("POST", "/chatflows", { body: { name: "widget form", type: "AGENTFLOW", isPublic: true, flowData, ...extra } });
}

describe("GET /public-chatbotConfig/{id} as the widget reads it", () => {
  it("carries flowData with the Start node's form (credentials stripped), and the form then runs", async () => {
    const flow = await formAgentflow();
    const config = await json("GET", `/public-chatbotConfig/${flow.id}`, { token: null });
    expect(typeof config.flowData).toBe("string");
    const nodes = JSON.parse(config.flowData).nodes as { data: Record<string, any> }[];
    const start = nodes.find((n) => n.data.name === "startAgentflow");
    expect(start?.data.inputs).toMatchObject({ startInputType: "formInput", formTitle: "Order form", formInputTypes });
    expect(config.flowData).not.toContain("cred-should-not-leak");

    // What the widget sends once the form is filled in: `form` without a question.
    const answer = await json("POST", `/prediction/${flow.id}`, { token: null, body: { form: { item: "socks" }, chatId: "widget-form" } });
    expect(answer.text).toBe("Ordered socks.");
  });

  it("leaves out allowedOrigins and allowedOriginsError, keeps the rest of chatbotConfig", async () => {
    const chatbotConfig = JSON.stringify({
      welcomeMessage: "hi",
      allowedOrigins: ["https://shop.example"],
      allowedOriginsError: "Not here",
      starterPrompts: { 0: { prompt: "Where is my order?" } },
    });
    const flow = await formAgentflow({ chatbotConfig });
    const res = await call("GET", `/public-chatbotConfig/${flow.id}`, { token: null, headers: { origin: "https://shop.example" } });
    expect(res.status).toBe(200);
    const config = await res.json<Record<string, unknown>>();
    expect(config).toMatchObject({ welcomeMessage: "hi", starterPrompts: { 0: { prompt: "Where is my order?" } }, isTTSEnabled: false });
    expect(config).not.toHaveProperty("allowedOrigins");
    expect(config).not.toHaveProperty("allowedOriginsError");
    // The rule itself still holds on the prediction.
    const refused = await call("POST", `/prediction/${flow.id}`, {
      token: null,
      headers: { origin: "https://elsewhere.example" },
      body: { form: { item: "socks" } },
    });
    expect(refused.status).toBe(403);
    expect((await refused.json<{ message: string }>()).message).toBe("Not here");
  });
});
