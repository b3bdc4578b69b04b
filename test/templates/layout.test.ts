// Each template opens on the canvas with no node drawn over another. Three did (a Buffer Memory under
// the Workers AI model, the Review node over Draft Reply): their positions ignored how tall or wide
// the canvas draws a node. The canvas's sizes are not known here, so each node's box is a lower bound
// of what Chromium drew for these templates at 1600x1000 (Workers AI model 300x427, Buffer Memory
// 300x253, Conversation Chain 300x435, Document Store 300x312, an LLM node naming its model 312x72,
// Review 117x80): boxes that overlap here overlap on the canvas.
import { describe, expect, it } from "vitest";
import { type Flow, templates } from "../studio/templates";

type Param = { additionalParams?: boolean; hidden?: boolean };
type Box = { id: string; x: number; y: number; w: number; h: number };

/** A chatflow node: 300 wide; its height grows with the inputs shown on it and its anchors. */
function chatflowBox(data: Flow["nodes"][number]["data"]): { w: number; h: number } {
  const params = (data.inputParams ?? []) as Param[];
  const shown = params.filter((p) => !p.additionalParams && !p.hidden).length;
  const more = params.some((p) => p.additionalParams) ? 53 : 0;
  const options = data.outputAnchors?.[0]?.type === "options" ? 25 : 0;
  return { w: 300, h: 200 + 87 * shown + 45 * (data.inputAnchors?.length ?? 0) + more + options };
}

/** An agentflow node: one row as wide as its label, plus its model's chip when it names one. */
function agentflowBox(data: Flow["nodes"][number]["data"]): { w: number; h: number } {
  const model = data.inputs?.llmModel ?? data.inputs?.agentModel;
  return { w: Math.max(100, 60 + 7.5 * String(data.label ?? "").length) + (model ? 150 : 0), h: 66 };
}

function boxOf(node: Flow["nodes"][number]): Box {
  const size =
    node.type === "stickyNote" || node.type === "stickyNoteAgentflow" || /^stickyNote/.test(node.data.name)
      ? { w: 200, h: 100 }
      : node.type === "agentFlow"
        ? agentflowBox(node.data)
        : chatflowBox(node.data);
  return { id: node.id, x: node.position.x, y: node.position.y, ...size };
}

const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe("the templates' layout", () => {
  it("no node of any template is drawn over another", async () => {
    const found: string[] = [];
    for (const t of await templates()) {
      const boxes = (JSON.parse(t.flowData) as Flow).nodes.map(boxOf);
      for (const [i, a] of boxes.entries())
        for (const b of boxes.slice(i + 1)) if (overlap(a, b)) found.push(`${t.templateName}: ${a.id} / ${b.id}`);
    }
    expect(found).toEqual([]);
  });
});
