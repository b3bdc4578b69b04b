import { createApp } from "./app";

export { RateLimiter } from "./rate-limit/limiter";

// The Worker entry. Queue and scheduled handlers join here when the document store issue adds them.
export default createApp();
