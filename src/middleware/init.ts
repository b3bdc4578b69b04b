// init: the request's D1 session (lib/d1-session.ts: a replica for reads and runs, the primary for
// other writes, the client's bookmark honoured and the newest one sent back), the database client
// over it, and the request's services container over that client (services/container.ts: env,
// config, files, the engine's ports built on first use, credentials, waitUntil, the detached runs
// port) on c.var.services: a route or guard reaches the database only through it, handing it to a
// service. The context map is declared here, with the middleware that fills it, so that neither
// env.ts (which everything imports) nor a service knows Hono's context. With the simulated planet on (lib/d1-simulation.ts,
// development only), the session is delayed and its round trips counted.
import type { Context, MiddlewareHandler } from "hono";
import { dbOver } from "../db";
import { BOOKMARK_HEADER, bookmarkOf, sessionStart } from "../lib/d1-session";
import { type D1Trace, newTrace, simulateD1, simulationOf, traceOf } from "../lib/d1-simulation";
import type { AppEnv } from "../env";
import { workflowRuns } from "../detached/runs-port";
import { editResponseHeaders } from "./response-headers";
import { type Services, createServices } from "../services/container";

declare module "hono" {
  interface ContextVariableMap {
    /** The request's services container (services/container.ts): what routes hand to services. */
    services: Services;
  }
}

// The benchmark reads a request's round trips here (only while the simulation is on).
const TRACE_PATH = /^\/api\/v1\/__d1-trace\/([^/]+)$/;

export const init: MiddlewareHandler<AppEnv> = async (c, next) => {
  const sim = simulationOf(c.env);
  if (sim && c.req.method === "GET") {
    const asked = TRACE_PATH.exec(c.req.path)?.[1];
    if (asked) {
      const trace = traceOf(asked);
      return trace ? c.json({ done: trace.done, ...trace.marks }) : c.json({ message: `No trace of request ${asked}` }, 404);
    }
  }
  const { constraint, primaryFirst } = sessionStart(c.req.method, c.req.path, bookmarkOf(c.req.header(BOOKMARK_HEADER)));
  const session = c.env.DB.withSession(constraint);
  const trace = sim ? newTrace(c.get("requestId")) : undefined;
  const db = dbOver(sim && trace ? simulateD1(session, sim, trace, primaryFirst) : session);
  const request = {
    id: c.get("requestId"),
    waitUntil: (work: Promise<unknown>) => c.executionCtx.waitUntil(work),
    runStarted: trace ? () => trace.mark("run") : undefined,
  };
  c.set("services", createServices({ db, env: c.env, request, detached: workflowRuns(c.env) }));
  await next();
  // The newest state this request saw or made (a stream's later writes are not in it: its head has left).
  const bookmark = session.getBookmark();
  if (bookmark) editResponseHeaders(c, (headers) => headers.set(BOOKMARK_HEADER, bookmark));
  if (trace) traceResponse(c, trace);
};

// A Flowise token frame, an OpenAI-compatible chunk with text (its role chunk's content is empty),
// or a Responses API text delta.
const TOKEN_FRAME = /"event":"token"|"delta":\{"content":"[^"]|^event: response\.output_text\.delta$/m;

/** Marks the head now, the first token frame and the end as the body passes. */
function traceResponse(c: Context<AppEnv>, trace: D1Trace): void {
  trace.mark("head");
  const res = c.res;
  if (!res.body || !res.headers.get("content-type")?.startsWith("text/event-stream")) {
    trace.mark("end");
    return;
  }
  const decoder = new TextDecoder();
  const watch = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, out) {
      if (!trace.marks.firstToken && TOKEN_FRAME.test(decoder.decode(chunk, { stream: true }))) trace.mark("firstToken");
      out.enqueue(chunk);
    },
    flush() {
      trace.mark("end");
    },
  });
  c.res = new Response(res.body.pipeThrough(watch), res);
}
