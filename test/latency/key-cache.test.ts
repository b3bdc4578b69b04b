// API keys kept per isolate (src/services/apikeys.ts, KEY_CACHE_MS): a client's requests stop
// reading its key from D1 each time; PUT and DELETE of the key take effect at once here; a key
// deleted where this isolate cannot hear of it stops working within KEY_CACHE_MS; a key deleted
// here stays refused even if a replica that has not seen the delete still holds it.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KEY_CACHE_MS } from "../../src/services/apikeys";
import { json, uuid } from "../helpers";
import { standinFlow, workerWith } from "./helpers";

const DB = () => (env as unknown as { DB: D1Database }).DB;
const planet = workerWith({ ENVIRONMENT: "development", D1_SIMULATED_RTT_MS: "0", D1_SIMULATED_REPLICA_RTT_MS: "0" });
const trips = async (res: { headers: Headers }) => (await planet("GET", `/__d1-trace/${res.headers.get("x-request-id")}`)).body.done;

async function newKey(): Promise<{ id: string; apiKey: string }> {
  return json("POST", "/apikey", { body: { keyName: `cache ${uuid()}` } });
}

const asKey = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

afterEach(() => {
  vi.useRealTimers();
});

describe("the API key cache", () => {
  it("a key is read from D1 once, then answered from the isolate", async () => {
    const key = await newKey();
    const flow = await json("POST", "/chatflows", { body: { name: `k ${uuid()}`, flowData: "{}" } });
    const first = await planet("GET", `/chatflows/${flow.id}`, { headers: asKey(key.apiKey) });
    expect(first.status).toBe(200);
    expect(await trips(first)).toEqual({ primary: 0, replica: 2 }); // the key, then the flow
    const second = await planet("GET", `/chatflows/${flow.id}`, { headers: asKey(key.apiKey) });
    expect(second.status).toBe(200);
    expect(await trips(second)).toEqual({ primary: 0, replica: 1 }); // the flow only
  });

  it("PUT re-scoping a key applies to its next request", async () => {
    const key = await newKey();
    const flow = await json("POST", "/chatflows", { body: { name: `k ${uuid()}`, flowData: "{}" } });
    expect((await planet("GET", `/chatflows/${flow.id}`, { headers: asKey(key.apiKey) })).status).toBe(200);
    await json("PUT", `/apikey/${key.id}`, { body: { permissions: ["tools:view"] } });
    const refused = await planet("GET", `/chatflows/${flow.id}`, { headers: asKey(key.apiKey) });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("chatflows:view");
  });

  it("DELETE revokes a key at once, for records and predictions, even where a replica still has it", async () => {
    const key = await newKey();
    const flowId = await standinFlow();
    expect((await planet("GET", `/chatflows/${flowId}`, { headers: asKey(key.apiKey) })).status).toBe(200);
    expect((await planet("POST", `/prediction/${flowId}`, { headers: asKey(key.apiKey), body: { question: "hi" } })).status).toBe(200);
    const row = await DB().prepare("SELECT * FROM apikey WHERE id = ?").bind(key.id).first<Record<string, unknown>>();

    await json("DELETE", `/apikey/${key.id}`);
    expect((await planet("GET", `/chatflows/${flowId}`, { headers: asKey(key.apiKey) })).status).toBe(401);
    expect((await planet("POST", `/prediction/${flowId}`, { headers: asKey(key.apiKey), body: { question: "hi" } })).status).toBe(401);

    // A replica that has not seen the delete yet still answers the row: this isolate refuses it all the same.
    const columns = Object.keys(row!);
    await DB()
      .prepare(`INSERT INTO apikey (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
      .bind(...columns.map((c) => row![c]))
      .run();
    expect((await planet("GET", `/chatflows/${flowId}`, { headers: asKey(key.apiKey) })).status).toBe(401);
    expect((await planet("POST", `/prediction/${flowId}`, { headers: asKey(key.apiKey), body: { question: "hi" } })).status).toBe(401);
    await DB().prepare("DELETE FROM apikey WHERE id = ?").bind(key.id).run();
  });

  it("a key deleted where this isolate does not hear of it stops working within KEY_CACHE_MS", async () => {
    const key = await newKey();
    const flow = await json("POST", "/chatflows", { body: { name: `k ${uuid()}`, flowData: "{}" } });
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    expect((await planet("GET", `/chatflows/${flow.id}`, { headers: asKey(key.apiKey) })).status).toBe(200);
    await DB().prepare("DELETE FROM apikey WHERE id = ?").bind(key.id).run(); // another isolate's DELETE
    vi.advanceTimersByTime(KEY_CACHE_MS - 1000);
    expect((await planet("GET", `/chatflows/${flow.id}`, { headers: asKey(key.apiKey) })).status).toBe(200);
    vi.advanceTimersByTime(1001);
    expect((await planet("GET", `/chatflows/${flow.id}`, { headers: asKey(key.apiKey) })).status).toBe(401);
  });
});
