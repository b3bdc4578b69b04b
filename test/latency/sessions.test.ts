// D1's Sessions API per request (src/lib/d1-session.ts): where each request's session starts (a
// replica for reads and runs, the primary for other writes), the bookmark sent back on every
// response that used D1, and a client reading its own writes by sending it back.
import { describe, expect, it } from "vitest";
import { uuid } from "../helpers";
import { recordingDb, standinFlow, workerWith } from "./helpers";

const flowData = JSON.stringify({ nodes: [], edges: [] });

describe("a session per request", () => {
  it("reads start at a replica, other writes at the primary, runs at a replica; each answer carries a bookmark", async () => {
    const { db, opened } = recordingDb();
    const call = workerWith({ DB: db });
    const created = await call("POST", "/chatflows", { body: { name: `s ${uuid()}`, flowData } });
    expect(created.status).toBe(200);
    expect(opened).toEqual(["first-primary"]);
    const bookmark = created.headers.get("x-d1-bookmark");
    expect(bookmark).toMatch(/^[0-9a-f]+(-[0-9a-f]+)+$/);

    const read = await call("GET", `/chatflows/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(opened.at(-1)).toBe("first-unconstrained");
    expect(read.headers.get("x-d1-bookmark")).toMatch(/^[0-9a-f]+(-[0-9a-f]+)+$/);

    const flowId = await standinFlow();
    const predicted = await call("POST", `/prediction/${flowId}`, { body: { question: "hello" } });
    expect(predicted.status).toBe(200);
    expect(opened.at(-1)).toBe("first-unconstrained");
    // the run's messages were written in that session: its bookmark is at least as recent as the write's
    expect(predicted.headers.get("x-d1-bookmark")! >= bookmark!).toBe(true);
  });

  it("a client reads its own writes: the bookmark it got back opens its next session, and that session sees the write", async () => {
    const { db, opened } = recordingDb();
    const call = workerWith({ DB: db });
    const created = await call("POST", "/chatflows", { body: { name: `before ${uuid()}`, flowData } });
    const renamed = `after ${uuid()}`;
    const put = await call("PUT", `/chatflows/${created.body.id}`, {
      body: { name: renamed },
      headers: { "x-d1-bookmark": created.headers.get("x-d1-bookmark")! },
    });
    expect(put.status).toBe(200);
    expect(opened.at(-1)).toBe("first-primary"); // a write starts at the primary, whatever bookmark it brings
    const bookmark = put.headers.get("x-d1-bookmark")!;

    const read = await call("GET", `/chatflows/${created.body.id}`, { headers: { "x-d1-bookmark": bookmark } });
    expect(opened.at(-1)).toBe(bookmark);
    expect(read.status).toBe(200);
    expect(read.body.name).toBe(renamed);
    // the answer's bookmark never goes back in time
    expect(read.headers.get("x-d1-bookmark")! >= bookmark).toBe(true);
  });

  it("a deleted flow answers 404 to its next read and its next prediction", async () => {
    const call = workerWith({});
    const flowId = await standinFlow();
    expect((await call("POST", `/prediction/${flowId}`, { body: { question: "hi" } })).status).toBe(200);
    const deleted = await call("DELETE", `/chatflows/${flowId}`);
    expect(deleted.status).toBe(200);
    const headers = { "x-d1-bookmark": deleted.headers.get("x-d1-bookmark")! };
    expect((await call("GET", `/chatflows/${flowId}`, { headers })).status).toBe(404);
    const run = await call("POST", `/prediction/${flowId}`, { body: { question: "hi" }, headers });
    expect(run.status).toBe(404);
    expect(run.body.message).toContain(flowId);
  });

  it("a bookmark that is not one is a 400 naming the header, before any D1 read", async () => {
    const { db, opened } = recordingDb();
    const call = workerWith({ DB: db });
    for (const bad of ["first-primary", "not a bookmark", "00000000-zzzz", "0".repeat(300)]) {
      const res = await call("GET", "/chatflows", { headers: { "x-d1-bookmark": bad } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, success: false });
      expect(res.body.message).toContain("x-d1-bookmark");
    }
    expect(opened).toEqual([]);
  });

  it("browsers may send the bookmark and read it back (CORS)", async () => {
    const call = workerWith({ CORS_ORIGINS: "https://app.example" });
    const preflight = await call("OPTIONS", "/chatflows", {
      headers: { origin: "https://app.example", "access-control-request-method": "GET", "access-control-request-headers": "x-d1-bookmark" },
    });
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("x-d1-bookmark");
    const read = await call("GET", "/chatflows", { headers: { origin: "https://app.example" } });
    expect(read.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("x-d1-bookmark");
  });
});
