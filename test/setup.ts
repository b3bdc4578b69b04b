import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// Bring D1 to the current schema: the first file applies the migrations, later files (which share
// its storage: isolate is off) find them applied.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
