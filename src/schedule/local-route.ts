// Firing the Cron Trigger by hand, locally: `GET /cdn-cgi/handler/scheduled?cron=*+*+*+*+*&time=<unix seconds>`.
// `npm run dev` (wrangler's proxy) answers that path itself; `npm start` serves the built worker
// straight from workerd, which knows only /cdn-cgi/local/scheduled, so the worker answers the
// wrangler path there — only when LOCAL_CRON_ROUTE is "true", which only wrangler.toml's
// [env.local] sets: a deployment never exposes it.
import type { Env } from "../env";
import { fireSchedules } from "./cron-trigger";

const PATH = "/cdn-cgi/handler/scheduled";

// The URL is parsed only when it names the path: every local request asks this first.
export const isLocalCronRoute = (request: Request, env: Env): boolean =>
  env.LOCAL_CRON_ROUTE === "true" && request.method === "GET" && request.url.includes(PATH) && new URL(request.url).pathname === PATH;

export async function fireFromRoute(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const time = params.get("time");
  const scheduledTime = time !== null && /^\d+$/.test(time) ? Number(time) : Date.now();
  const report = await fireSchedules({ scheduledTime, cron: params.get("cron") ?? "* * * * *" }, env, ctx);
  return Response.json({ outcome: "ok", ...report });
}
