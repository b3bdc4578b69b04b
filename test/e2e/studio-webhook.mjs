// The agent canvas's webhook listener, driven as a person does: a webhook-triggered agentflow (Start
// → Direct Reply, made through the API) opened on the canvas, its listener panel opened (register,
// then the event stream), the webhook called from outside: the panel shows the run COMPLETED and
// its answer; closing the panel removes the listener.
import { assert } from "./studio-watch.mjs";

const node = (id, name, x, inputs) => ({
  id,
  type: "agentFlow",
  position: { x, y: 100 },
  data: { id, label: id.split("Agentflow")[0], name, inputs, category: "Agent Flows" },
});

export async function webhookListenerOnCanvas({ page, origin, api }) {
  const flowData = JSON.stringify({
    nodes: [
      node("startAgentflow_0", "startAgentflow", 100, { startInputType: "webhookTrigger", webhookMethod: "POST" }),
      node("directReplyAgentflow_0", "directReplyAgentflow", 400, { directReplyMessage: "heard {{ $webhook.body.name }}" }),
    ],
    edges: [{ id: "e0", source: "startAgentflow_0", target: "directReplyAgentflow_0", type: "agentFlow" }],
  });
  const flow = await api("POST", "/chatflows", { name: "Studio e2e webhook", type: "AGENTFLOW", flowData });
  await page.goto(`${origin}/v2/agentcanvas/${flow.id}`);
  const registered = page.waitForResponse((r) => r.url().includes(`/webhook-listener/${flow.id}/register`));
  const streamed = page.waitForResponse((r) => r.url().includes(`/webhook-listener/${flow.id}/stream/`));
  await page.getByRole("button", { name: "webhook-listener" }).click();
  assert((await registered).status() === 200 && (await streamed).status() === 200, "the listener did not register and stream");
  await page.getByText("Live observatory").waitFor();

  const name = `caller-${Date.now()}`;
  const res = await fetch(`${origin}/api/v1/webhook/${flow.id}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  assert(res.status === 200 && (await res.json()).text === `heard ${name}`, `the webhook answered ${res.status}`);
  await page.getByText(`heard ${name}`).waitFor({ timeout: 15_000 });
  await page.getByText("COMPLETED", { exact: true }).waitFor();

  const removed = page.waitForResponse(
    (r) => r.request().method() === "DELETE" && r.url().includes(`/webhook-listener/${flow.id}/listener/`),
  );
  await page.getByRole("button", { name: "webhook-listener" }).click(); // the same button closes the panel
  assert((await removed).status() === 200, "closing the panel did not remove the listener");
}
