import { createApp } from "./app";
import type { Env } from "./env";
import { assertBindings } from "./middleware/bindings";
import { queue } from "./queue/upsert-consumer";

export { RateLimiter } from "./rate-limit/limiter";
export { ExecutionEvents } from "./detached/events-object";
export { RunWorkflow } from "./detached/run-workflow";

const app = createApp();

// The Worker entry: HTTP through Hono, and the upsert queue's consumer.
export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<unknown>, env: Env) => {
    assertBindings(env);
    return queue(batch, env);
  },
} satisfies ExportedHandler<Env>;
