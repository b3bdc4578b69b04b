// Headers a middleware adds to the route's response after it is made. Setting them there, instead
// of on the context before the route runs, saves Hono copying the response to merge them in; a
// response whose headers are immutable (passed through from a fetch, as ASSETS answers) is copied
// once, then edited.
import type { Context } from "hono";
import type { AppEnv } from "../env";

export function editResponseHeaders(c: Context<AppEnv>, edit: (headers: Headers) => void): void {
  try {
    edit(c.res.headers);
  } catch {
    const res = c.res;
    c.res = undefined; // replaced, not merged with the response it copies
    c.res = new Response(res.body, res);
    edit(c.res.headers);
  }
}
