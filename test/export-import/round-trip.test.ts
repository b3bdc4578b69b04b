// Issue 28 item 7: what an import takes comes back from the export as it was given — "" stays "",
// null stays null, empty arrays stay empty — on every record kind (the finding: feedback whose
// `content` is "", as Flowise exports it, came back null).
import { describe, expect, it, vi } from "vitest";
import { json } from "../helpers";
import { ALL_FLAGS, exportWith, freshExport, importFile } from "./helpers";

vi.setConfig({ testTimeout: 60_000 });

/** Fields Flowise writes that the export does not (its workspace; a message's reasoning text, not kept here). */
const NOT_EXPORTED = new Set(["workspaceId", "reasonContent"]);

const isEmptyish = (v: unknown) =>
  v === "" ||
  v === null ||
  v === "[]" ||
  v === "{}" ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === "object" && v !== null && !Object.keys(v).length);

describe("round trip of empty values", () => {
  it('every record kind: each field given as "", null, [] or {} is exported as given', async () => {
    const { file, ids } = await freshExport();
    const f = file as Record<string, any[]>;
    const flow = f.ChatFlow.find((r) => r.id === ids.memoryFlow)!;
    Object.assign(flow, {
      apikeyid: "",
      chatbotConfig: "",
      apiConfig: null,
      analytic: "",
      speechToText: null,
      textToSpeech: "",
      followUpPrompts: "[]",
      category: "",
    });
    Object.assign(f.AgentFlowV2[0], { category: null, chatbotConfig: "{}", analytic: "" });
    Object.assign(f.AgentFlow[0], { category: "", apiConfig: "" });
    Object.assign(f.AssistantFlow[0], { speechToText: "" });
    Object.assign(f.AssistantCustom[0], { iconSrc: "" });
    Object.assign(f.AssistantOpenAI[0], { iconSrc: null });
    Object.assign(f.Tool[0], { description: "", color: "", iconSrc: "", schema: "[]", func: "" });
    Object.assign(f.DocumentStore[0], { description: "", vectorStoreConfig: "", recordManagerConfig: null, whereUsed: "[]" });
    Object.assign(f.DocumentStoreFileChunk[0], { metadata: "{}" });
    Object.assign(f.Execution[0], { action: "", stoppedDate: null, executionData: "[]" });
    const [user, api] = f.ChatMessage;
    Object.assign(user, {
      content: "",
      sourceDocuments: "",
      usedTools: "[]",
      fileAnnotations: null,
      agentReasoning: "[]",
      fileUploads: "",
      artifacts: null,
      action: "",
      followUpPrompts: "",
      memoryType: "",
      sessionId: "",
      leadEmail: "",
    });
    Object.assign(api, { content: "", artifacts: "[]", leadEmail: null, memoryType: null });
    Object.assign(f.ChatMessageFeedback[0], { content: "" });
    f.Variable[0].value = "";

    const res = await importFile(file);
    expect(res.status).toBe(200);
    const out = (await (await exportWith(ALL_FLAGS)).json()) as Record<string, any[]>;

    const compared: Record<string, number> = {};
    for (const [section, records] of Object.entries(f)) {
      if (!Array.isArray(records) || section === "CustomTemplate") continue;
      for (const given of records) {
        const exported = out[section].find((r) => r.id === given.id);
        expect(exported, `${section} ${given.id}`).toBeDefined();
        for (const [key, value] of Object.entries(given)) {
          if (NOT_EXPORTED.has(key) || !isEmptyish(value)) continue;
          expect(exported[key], `${section}.${key}`).toEqual(value);
          compared[section] = (compared[section] ?? 0) + 1;
        }
      }
    }
    // Every record kind had empty fields to compare.
    const kinds = Object.keys(f).filter((k) => Array.isArray(f[k]) && f[k].length && k !== "CustomTemplate");
    expect(Object.keys(compared).sort()).toEqual(kinds.sort());
    // Empty arrays inside a store's loaders too.
    const store = out.DocumentStore.find((r) => r.id === ids.store)!;
    expect(JSON.parse(store.loaders).find((l: any) => l.id === ids.textLoader).files).toEqual([]);
    // And what the API shows: the feedback's content is "" (it came back null).
    const feedback = await json<any[]>("GET", `/feedback/${ids.chatflow}`);
    expect(feedback.find((r) => r.id === ids.feedback).content).toBe("");
  });

  it('a field given as "" is still checked when it is not empty: a config that is not JSON is a 400 naming it', async () => {
    const { file } = await freshExport();
    Object.assign((file as Record<string, any[]>).ChatFlow[1], { chatbotConfig: "{not json" });
    const res = await importFile(file);
    expect(res.status).toBe(400);
    expect((await res.json<any>()).message).toMatch(/ChatFlow\[1\].*: chatbotConfig: must be JSON serialized as a string$/);
  });
});
