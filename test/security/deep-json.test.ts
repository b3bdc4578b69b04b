// Issue 8, point 7: JSON nested 100k deep overflowed the stack of the code walking it (the JSON
// loader, the engine resolving a node's inputs) and answered 500. Input is now refused where it
// enters, with a 400 naming the limit (1000 levels) and nothing stored; input at the limit works.
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/lib/json-depth";
import { call, expectError, json } from "../helpers";
import { LOCAL, form, newStore, snapshot, upsertForm } from "../routes/document-store-helpers";
import { openAICredential, saveChain, standinRequests } from "./helpers";

const arrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const objects = (depth: number, leaf = '"x"') => '{"a":'.repeat(depth) + leaf + "}".repeat(depth);
const DEEP = 100_000;

describe("JSON nested 100k deep is a 400, not a stack overflow", () => {
  it("a JSON file and a JSON Lines file to a document store: 400 naming the file, the store unchanged", async () => {
    const store = await newStore();
    const before = await snapshot(store.id);
    for (const data of [arrays(DEEP), objects(DEEP)]) {
      const err = await expectError(await upsertForm(store.id, form([{ name: "deep.json", type: "application/json", data }], LOCAL)), 400);
      expect(err.message).toBe(`File deep.json nests deeper than ${MAX_JSON_DEPTH} levels`);
      const lines = `{"ok":"fine"}\n${data}\n`;
      const errL = await expectError(
        await upsertForm(store.id, form([{ name: "deep.jsonl", type: "application/jsonl", data: lines }], LOCAL)),
        400,
      );
      expect(errL.message).toBe(`File deep.jsonl line 2 nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    expect(await snapshot(store.id)).toEqual(before);
  }, 60_000);

  it("a prediction body: 400, nothing stored; at the limit it still runs", async () => {
    const apiConfig = JSON.stringify({
      overrideConfig: { status: true, nodes: { "Azure ChatOpenAI": [{ name: "temperature", enabled: true }] } },
    });
    const id = await saveChain({ credential: await openAICredential("sk-test"), extra: { apiConfig } });
    const raw = (depth: number, marker: string) => `{"question":"${marker}","overrideConfig":{"temperature":${objects(depth - 2, "0.5")}}}`;
    const err = await expectError(
      await call("POST", `/prediction/${id}`, { raw: raw(DEEP, "too-deep"), headers: { "content-type": "application/json" } }),
      400,
    );
    expect(err.message).toBe(`The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    expect(await json("GET", `/chatmessage/${id}`)).toEqual([]);

    await expectError(
      await call("POST", `/prediction/${id}`, {
        raw: raw(MAX_JSON_DEPTH + 1, "one-too-deep"),
        headers: { "content-type": "application/json" },
      }),
      400,
    );
    const marker = crypto.randomUUID();
    const res = await call("POST", `/prediction/${id}`, {
      raw: raw(MAX_JSON_DEPTH, marker),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(200);
    expect(await standinRequests(marker)).toHaveLength(1);
  });

  it("a chatflow's flowData (read by the engine at every prediction): refused on write", async () => {
    const flowData = JSON.stringify({ nodes: [], edges: [], deep: JSON.parse(arrays(2000)) });
    const res = await call("POST", "/chatflows", { body: { name: "deep", flowData } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect((await res.json<any>()).message).toContain(`must not nest deeper than ${MAX_JSON_DEPTH} levels`);
    expect((await json("GET", "/chatflows")).filter((f: any) => f.name === "deep")).toEqual([]);
  });
});
