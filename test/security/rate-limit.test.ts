// Issue 8, point 7 (rate limits): under wrangler dev a client-supplied CF-Connecting-IP reset the
// count; leads and feedback had no limit at all. The tests run wrangler.toml's `local` vars
// (TRUST_CF_CONNECTING_IP "false"); setVars plays a deployment behind Cloudflare.
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { rowsOf, seedMessages } from "../seed";
import { setVars } from "./helpers";

const LIMIT = { status: true, limitMax: 2, limitDuration: 60, limitMsg: "Easy there" };

/** A public chatflow limited to 2 calls a minute per client. Its graph is empty, so a run that passes the limit answers 400. */
async function limitedFlow(): Promise<string> {
  return (
    await json("POST", "/chatflows", {
      body: { name: "limited", flowData: '{"nodes":[],"edges":[]}', isPublic: true, apiConfig: JSON.stringify({ rateLimit: LIMIT }) },
    })
  ).id;
}

const predict = (id: string, headers: Record<string, string>) =>
  call("POST", `/prediction/${id}`, { token: null, headers, body: { question: "q" } });

describe("client IP for rate limits", () => {
  it("a new CF-Connecting-IP or X-Forwarded-For on each request does not reset the count under wrangler dev", async () => {
    const id = await limitedFlow();
    expect((await predict(id, { "cf-connecting-ip": "198.51.100.1" })).status).toBe(400);
    expect((await predict(id, { "cf-connecting-ip": "198.51.100.2" })).status).toBe(400);
    expect((await expectError(await predict(id, { "cf-connecting-ip": "198.51.100.3" }), 429)).message).toBe("Easy there");
    expect((await expectError(await predict(id, { "x-forwarded-for": "198.51.100.4" }), 429)).message).toBe("Easy there");
    await expectError(await predict(id, {}), 429);
  });

  it("behind Cloudflare (TRUST_CF_CONNECTING_IP=true) each client IP has its own count", async () => {
    const id = await limitedFlow();
    const restore = setVars({ TRUST_CF_CONNECTING_IP: "true" });
    try {
      expect((await predict(id, { "cf-connecting-ip": "203.0.113.1" })).status).toBe(400);
      expect((await predict(id, { "cf-connecting-ip": "203.0.113.1" })).status).toBe(400);
      await expectError(await predict(id, { "cf-connecting-ip": "203.0.113.1" }), 429);
      expect((await predict(id, { "cf-connecting-ip": "203.0.113.2" })).status).toBe(400);
    } finally {
      restore();
    }
  });
});

describe("leads and feedback get the chatflow's rate limit", () => {
  it("POST /leads past the limit is 429 with limitMsg, and nothing more is stored", async () => {
    const id = await limitedFlow();
    for (const name of ["a", "b"]) await json("POST", "/leads", { token: null, body: { chatflowid: id, name } });
    const refused = await expectError(await call("POST", "/leads", { token: null, body: { chatflowid: id, name: "flood" } }), 429);
    expect(refused.message).toBe("Easy there");
    expect((await rowsOf<{ name: string }>("SELECT name FROM lead WHERE chatflowid = ?", id)).map((r) => r.name).sort()).toEqual([
      "a",
      "b",
    ]);
    // Its own count: the chat itself is not used up by leads.
    expect((await predict(id, {})).status).toBe(400);
  });

  it("POST /feedback and PUT /feedback past the limit are 429, and nothing more is stored or changed", async () => {
    const id = await limitedFlow();
    const answers = await seedMessages(
      id,
      [1, 2, 3].map((i) => ({ role: "apiMessage" as const, chatId: "c", createdDate: `2026-01-10T09:00:0${i}.000Z` })),
    );
    const first = await json("POST", "/feedback", { token: null, body: { messageId: answers[0].id, rating: "THUMBS_UP" } });
    await json("PUT", `/feedback/${first.id}`, { token: null, body: { content: "kept" } });
    await expectError(
      await call("POST", `/feedback/${id}`, { token: null, body: { messageId: answers[1].id, rating: "THUMBS_DOWN" } }),
      429,
    );
    await expectError(await call("PUT", `/feedback/${first.id}`, { token: null, body: { content: "overwritten" } }), 429);
    const rows = await rowsOf<{ messageId: string; content: string | null }>(
      "SELECT messageId, content FROM chat_message_feedback WHERE chatflowid = ?",
      id,
    );
    expect(rows).toEqual([{ messageId: answers[0].id, content: "kept" }]);
  });
});
