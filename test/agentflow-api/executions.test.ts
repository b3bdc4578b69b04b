// The executions API over rows as runs leave them: filters, paging, sharing, deleting, the errors,
// and TIMEOUT for a run whose isolate died (an INPROGRESS row nobody renews).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { saveAgentflow, seedExecution } from "./seed";

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

describe("GET /executions", () => {
  it("filters by agentflow, session, state and createdDate range; pages newest-updated first with the agentflow's name", async () => {
    const flow = await saveAgentflow("Support triage");
    const other = await saveAgentflow("Other");
    const old = await seedExecution({ agentflowId: flow, sessionId: "s-a", state: "FINISHED", createdDate: "2026-01-05T10:00:00.000Z" });
    const mid = await seedExecution({ agentflowId: flow, sessionId: "s-a", state: "STOPPED", createdDate: "2026-02-10T10:00:00.000Z" });
    const recent = await seedExecution({ agentflowId: flow, sessionId: "s-b", state: "ERROR", createdDate: "2026-03-15T10:00:00.000Z" });
    await seedExecution({ agentflowId: other, sessionId: "s-a", state: "FINISHED", createdDate: "2026-02-10T11:00:00.000Z" });

    const all = await json(`GET`, `/executions?agentflowId=${flow}`);
    expect(all.total).toBe(3);
    expect(all.data.map((e: any) => e.id)).toEqual([recent, mid, old]);
    expect(all.data[0]).toMatchObject({
      agentflowId: flow,
      sessionId: "s-b",
      state: "ERROR",
      isPublic: false,
      executionData: "[]",
      agentflow: { id: flow, name: "Support triage" },
    });

    expect((await json("GET", `/executions?agentflowId=${flow}&sessionId=s-a`)).data.map((e: any) => e.id)).toEqual([mid, old]);
    expect((await json("GET", `/executions?agentflowId=${flow}&state=STOPPED`)).data.map((e: any) => e.id)).toEqual([mid]);
    expect(
      (await json("GET", `/executions?agentflowId=${flow}&startDate=2026-02-01&endDate=2026-02-28`)).data.map((e: any) => e.id),
    ).toEqual([mid]);
    expect((await json("GET", `/executions?agentflowId=${flow}&endDate=2026-02-10`)).data.map((e: any) => e.id)).toEqual([mid, old]);

    const page2 = await json("GET", `/executions?agentflowId=${flow}&page=2&limit=2`);
    expect(page2).toEqual({ total: 3, data: [expect.objectContaining({ id: old })] });
  });

  it("defaults to 12 per page", async () => {
    const flow = await saveAgentflow();
    for (let i = 0; i < 13; i++)
      await seedExecution({ agentflowId: flow, createdDate: `2026-04-01T10:00:${String(i).padStart(2, "0")}.000Z` });
    const first = await json("GET", `/executions?agentflowId=${flow}`);
    expect(first.total).toBe(13);
    expect(first.data).toHaveLength(12);
  });

  it("400 for a malformed filter, 401 without a bearer", async () => {
    await expectError(await call("GET", "/executions?state=DONE"), 400);
    await expectError(await call("GET", "/executions?agentflowId=nope"), 400);
    await expectError(await call("GET", "/executions?startDate=yesterday"), 400);
    await expectError(await call("GET", "/executions?limit=0"), 400);
    await expectError(await call("GET", "/executions", { token: null }), 401);
  });
});

describe("GET/PUT/DELETE /executions/{id}", () => {
  it("reads, shares (isPublic only) and deletes one execution; its messages stay without the link", async () => {
    const flow = await saveAgentflow();
    const data = [
      {
        nodeId: "startAgentflow_0",
        nodeLabel: "Start",
        data: { id: "startAgentflow_0", name: "startAgentflow", input: { question: "hi" }, output: { question: "hi" } },
        previousNodeIds: [],
        status: "FINISHED",
      },
    ];
    const id = await seedExecution({ agentflowId: flow, sessionId: "chat-9", executionData: data });
    const messageId = crypto.randomUUID();
    await env.DB.prepare(
      "INSERT INTO chat_message (id, role, chatflowid, content, chatType, chatId, sessionId, executionId, createdDate) VALUES (?, 'apiMessage', ?, 'hi', 'EXTERNAL', 'chat-9', 'chat-9', ?, ?)",
    )
      .bind(messageId, flow, id, new Date().toISOString())
      .run();

    const got = await json("GET", `/executions/${id}`);
    expect(got).toMatchObject({
      id,
      agentflowId: flow,
      sessionId: "chat-9",
      state: "FINISHED",
      isPublic: false,
      action: null,
      stoppedDate: null,
    });
    expect(JSON.parse(got.executionData)).toEqual(data);
    expect(got).not.toHaveProperty("agentflow");

    const shared = await json("PUT", `/executions/${id}`, { body: { isPublic: true } });
    expect(shared).toMatchObject({ id, isPublic: true, state: "FINISHED", updatedDate: got.updatedDate });
    await expectError(await call("PUT", `/executions/${id}`, { body: { state: "FINISHED", isPublic: true } }), 400);
    await expectError(await call("PUT", `/executions/${id}`, { body: { isPublic: "yes" } }), 400);
    expect((await json("GET", `/executions/${id}`)).isPublic).toBe(true);

    expect(await json("DELETE", `/executions/${id}`)).toEqual({ deleted: 1 });
    await expectError(await call("GET", `/executions/${id}`), 404);
    await expectError(await call("DELETE", `/executions/${id}`), 404);
    const message = await env.DB.prepare("SELECT executionId FROM chat_message WHERE id = ?").bind(messageId).first();
    expect(message).toEqual({ executionId: null });
  });

  it("unknown id 404, non-UUID 400, no bearer 401 — on every method", async () => {
    const unknown = crypto.randomUUID();
    for (const method of ["GET", "DELETE"]) {
      await expectError(await call(method, `/executions/${unknown}`), 404);
      await expectError(await call(method, "/executions/not-a-uuid"), 400);
      await expectError(await call(method, `/executions/${unknown}`, { token: null }), 401);
    }
    await expectError(await call("PUT", `/executions/${unknown}`, { body: { isPublic: true } }), 404);
    await expectError(await call("PUT", "/executions/not-a-uuid", { body: { isPublic: true } }), 400);
    await expectError(await call("PUT", `/executions/${unknown}`, { body: { isPublic: true }, token: null }), 401);
  });

  it("DELETE /executions deletes the listed ones; an empty list is a 400", async () => {
    const flow = await saveAgentflow();
    const a = await seedExecution({ agentflowId: flow });
    const b = await seedExecution({ agentflowId: flow });
    const keep = await seedExecution({ agentflowId: flow });
    expect(await json("DELETE", "/executions", { body: { executionIds: [a, b, crypto.randomUUID()] } })).toEqual({ deleted: 2 });
    expect((await json("GET", `/executions?agentflowId=${flow}`)).data.map((e: any) => e.id)).toEqual([keep]);
    await expectError(await call("DELETE", "/executions", { body: { executionIds: [] } }), 400);
  });
});

describe("API key permissions", () => {
  it("executions:view|update|delete as Flowise names them; a key limited to chatflows reaches only their executions", async () => {
    const mine = await saveAgentflow("mine");
    const theirs = await saveAgentflow("theirs");
    const own = await seedExecution({ agentflowId: mine });
    const other = await seedExecution({ agentflowId: theirs });
    const key = (permissions: string[], chatflows?: string[]) =>
      json("POST", "/apikey", { body: { keyName: "k", permissions, ...(chatflows ? { chatflows } : {}) } }).then((k) => k.apiKey as string);

    const noExecutions = await key(["chatflows:view"]);
    const denied = await expectError(await call("GET", `/executions/${own}`, { token: noExecutions }), 403);
    expect(denied.message).toContain("executions:view");
    await expectError(await call("GET", "/executions", { token: noExecutions }), 403);

    const viewer = await key(["executions:view"]);
    expect((await json("GET", `/executions/${own}`, { token: viewer })).id).toBe(own);
    await expectError(await call("PUT", `/executions/${own}`, { token: viewer, body: { isPublic: true } }), 403);
    await expectError(await call("DELETE", `/executions/${own}`, { token: viewer }), 403);

    const limited = await key(["executions:view", "executions:update", "executions:delete"], [mine]);
    expect((await json("GET", `/executions?page=1&limit=100`, { token: limited })).data.map((e: any) => e.id)).toEqual([own]);
    await expectError(await call("GET", `/executions/${other}`, { token: limited }), 403);
    await expectError(await call("PUT", `/executions/${other}`, { token: limited, body: { isPublic: true } }), 403);
    await expectError(await call("DELETE", `/executions/${other}`, { token: limited }), 403);
    expect(await json("DELETE", "/executions", { token: limited, body: { executionIds: [own, other] } })).toEqual({ deleted: 1 });
    expect((await json("GET", `/executions/${other}`)).id).toBe(other);
  });
});

describe("deleting the agentflow", () => {
  it("deletes its executions, not other flows'", async () => {
    const flow = await saveAgentflow();
    const other = await saveAgentflow();
    const gone = await seedExecution({ agentflowId: flow });
    const kept = await seedExecution({ agentflowId: other });
    await json("DELETE", `/chatflows/${flow}`);
    await expectError(await call("GET", `/executions/${gone}`), 404);
    expect((await json("GET", `/executions/${kept}`)).id).toBe(kept);
  });
});

describe("GET /public-executions/{id}", () => {
  it("anonymous, only while public, without credential ids", async () => {
    const flow = await saveAgentflow();
    const data = [
      {
        nodeId: "llmAgentflow_0",
        nodeLabel: "LLM 0",
        status: "FINISHED",
        previousNodeIds: [],
        data: {
          id: "llmAgentflow_0",
          name: "llmAgentflow",
          input: { llmModel: "chatOpenAI", llmModelConfig: { modelName: "gpt", FLOWISE_CREDENTIAL_ID: "cred-1" } },
          output: { content: "hi" },
        },
      },
    ];
    const id = await seedExecution({ agentflowId: flow, executionData: data });
    await expectError(await call("GET", `/public-executions/${id}`, { token: null }), 404);

    await json("PUT", `/executions/${id}`, { body: { isPublic: true } });
    const res = await call("GET", `/public-executions/${id}`, { token: null });
    expect(res.status).toBe(200);
    const shared = await res.json<any>();
    expect(shared.id).toBe(id);
    expect(shared.executionData).not.toContain("cred-1");
    expect(JSON.parse(shared.executionData)[0].data.input.llmModelConfig).toEqual({ modelName: "gpt" });
    // The owner still sees the stored record as it is.
    expect((await json("GET", `/executions/${id}`)).executionData).toContain("cred-1");

    await json("PUT", `/executions/${id}`, { body: { isPublic: false } });
    await expectError(await call("GET", `/public-executions/${id}`, { token: null }), 404);
    await expectError(await call("GET", `/public-executions/${crypto.randomUUID()}`, { token: null }), 404);
    await expectError(await call("GET", "/public-executions/nope", { token: null }), 400);
  });
});

describe("TIMEOUT", () => {
  it("an INPROGRESS row not renewed within the lease reads as TIMEOUT, stored so; a live one stays INPROGRESS", async () => {
    const flow = await saveAgentflow();
    const dead = await seedExecution({ agentflowId: flow, state: "INPROGRESS", createdDate: minutesAgo(30), updatedDate: minutesAgo(10) });
    const live = await seedExecution({ agentflowId: flow, state: "INPROGRESS", updatedDate: minutesAgo(0.1) });

    expect((await json("GET", `/executions/${dead}`)).state).toBe("TIMEOUT");
    expect((await json("GET", `/executions/${live}`)).state).toBe("INPROGRESS");
    const stored = await env.DB.prepare("SELECT state, updatedDate FROM execution WHERE id = ?").bind(dead).first<any>();
    expect(stored.state).toBe("TIMEOUT");
    // Its last sign of life is kept as updatedDate.
    expect(Date.parse(stored.updatedDate)).toBeLessThan(Date.now() - 9 * 60_000);

    const dead2 = await seedExecution({ agentflowId: flow, state: "INPROGRESS", updatedDate: minutesAgo(5) });
    const timedOut = await json("GET", `/executions?agentflowId=${flow}&state=TIMEOUT`);
    expect(timedOut.data.map((e: any) => e.id).sort()).toEqual([dead, dead2].sort());
    expect((await json("GET", `/executions?agentflowId=${flow}&state=INPROGRESS`)).data.map((e: any) => e.id)).toEqual([live]);
  });
});

describe("OpenAPI", () => {
  it("documents the executions routes", async () => {
    const spec = await json("GET", "/openapi.json", { token: null });
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(["/executions", "/executions/{id}", "/public-executions/{id}"]));
    expect(Object.keys(spec.paths["/executions/{id}"]).sort()).toEqual(["delete", "get", "put"]);
    // Anonymous: the shared view needs no token.
    expect(spec.paths["/public-executions/{id}"].get.security ?? [{}]).toContainEqual({});
    expect(spec.paths["/executions"].get.security).toEqual([{ bearerAuth: [] }]);
  });
});
