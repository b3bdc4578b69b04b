// Flowise's shapes for the studio, at the edge of the HTTP layer (API.md, "The studio"): where the
// UI reads Flowise's real shapes and the contract says otherwise, a signed-in person's requests get
// Flowise's; bearer callers keep the contract's; writes accept both. One table, one entry per call:
//   acceptBody   every caller: a write's JSON body in Flowise's shape made the contract's before the
//                route validates it;
//   studioBody   the studio only: what the page sends that only Flowise's server would take;
//   studioQuery  the studio only: the query as Flowise's server reads it, before the route;
//   studioAnswer the studio only: a 200 JSON answer in Flowise's shape.
// Routes and services stay as the contract has them. "The studio" is a request with `x-request-from:
// internal`, a session cookie and no Authorization header before the route (its guard then checks
// the session), and a session principal after it.
import type { Context, MiddlewareHandler } from "hono";
import { isStudioRequest, sessionToken } from "../auth/session";
import type { AppEnv } from "../env";
import { STUDIO_SHAPES } from "./studio-shapes-table";

const API_BASE = "/api/v1";

const looksLikeStudio = (c: Context<AppEnv>) => isStudioRequest(c) && !c.req.header("Authorization") && !!sessionToken(c);

export const studioShapes: MiddlewareHandler<AppEnv> = async (c, next) => {
  const path = c.req.path.startsWith(API_BASE) ? c.req.path.slice(API_BASE.length).replace(/\/+$/, "") : "";
  const shape = STUDIO_SHAPES.find((s) => s.method === c.req.method && s.path.test(path));
  if (!shape) return next();

  const studio = looksLikeStudio(c);
  const { acceptBody, studioBody } = shape;
  if (acceptBody || (studio && studioBody)) {
    await normaliseBody(c, async (body) => {
      acceptBody?.(body);
      if (studio) await studioBody?.(body, c);
    });
  }
  const url = new URL(c.req.url);
  const asked = new URLSearchParams(url.search);
  if (shape.studioQuery && studio) {
    shape.studioQuery(url.searchParams);
    c.req.raw = new Request(url, c.req.raw);
  }
  await next();

  if (!shape.studioAnswer || c.get("principal")?.kind !== "session") return;
  const res = c.res;
  if (res.status !== 200 || !res.headers.get("content-type")?.startsWith("application/json")) return;
  const answer = await shape.studioAnswer(await res.json(), c, asked);
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  c.res = undefined; // replaced, not merged with the route's answer
  c.res = new Response(JSON.stringify(answer), { status: res.status, headers });
};

/** The JSON body normalised before the route reads it (a body that is not a JSON object is left to its 400). */
async function normaliseBody(c: Context<AppEnv>, normalise: (body: Record<string, unknown>) => Promise<void>): Promise<void> {
  if (!c.req.header("content-type")?.startsWith("application/json")) return;
  let body: unknown;
  try {
    body = await c.req.json();
  } catch (err) {
    if (err instanceof SyntaxError) return; // the route's validator answers it
    throw err;
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) return;
  await normalise(body as Record<string, unknown>);
  // The request the route reads is the normalised one (Hono's body cache holds the old body's text).
  const headers = new Headers(c.req.raw.headers);
  headers.delete("content-length");
  c.req.raw = new Request(c.req.raw.url, { method: c.req.method, headers, body: JSON.stringify(body), signal: c.req.raw.signal });
  c.req.bodyCache = {};
}
