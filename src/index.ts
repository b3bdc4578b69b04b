import { createApp } from "./app";
import type { Env } from "./env";
import { assertBindings } from "./middleware/bindings";
import { queue } from "./queue/upsert-consumer";
import { fireSchedules } from "./schedule/cron-trigger";
import { fireFromRoute, isLocalCronRoute } from "./schedule/local-route";

export { RateLimiter } from "./rate-limit/limiter";
export { ExecutionEvents } from "./detached/events-object";
export { RunWorkflow } from "./detached/run-workflow";
export { WebhookListeners } from "./services/webhooks/listener-hub";

const app = createApp();

// The Worker entry: HTTP through Hono, the upsert queue's consumer, and the Cron Trigger that fires schedules.
export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) =>
    env.LOCAL_CRON_ROUTE && isLocalCronRoute(request, env) ? fireFromRoute(request, env, ctx) : app.fetch(request, env, ctx),
  queue: (batch: MessageBatch<unknown>, env: Env) => {
    assertBindings(env);
    return queue(batch, env);
  },
  scheduled: async (controller: ScheduledController, env: Env, ctx: ExecutionContext) => {
    assertBindings(env);
    await fireSchedules(controller, env, ctx);
  },
} satisfies ExportedHandler<Env>;
