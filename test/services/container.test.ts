// The services container (src/services/container.ts) builds the engine's ports on first use: the
// Cron Trigger's tick, like any request or batch that runs no flow, reads none of what they are made
// of (the AI and Vectorize bindings, the providers' vars, SQL and work limit settings). The env here
// is the Worker's own, behind a proxy that notes which of its names were read.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import type { Env } from "../../src/env";
import { createServices } from "../../src/services/container";
import { runScheduleTick } from "../../src/services/schedules/tick";

/** What only the engine's ports read: bindings, a provider's base URL, the SQL and work limit settings. */
const PORT_NAMES = ["AI", "VECTORIZE", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "SQL_D1_BINDINGS", "DOCX_MAX_ENTRIES"];

function watchedEnv(): { env: Env; read: Set<string> } {
  const read = new Set<string>();
  const watched = new Proxy(env as unknown as Env, {
    get(target, name, receiver) {
      if (typeof name === "string") read.add(name);
      return Reflect.get(target, name, receiver);
    },
  });
  return { env: watched, read };
}

const servicesOver = (watched: Env) => createServices({ db: createDb(env.DB), env: watched, request: { waitUntil: () => undefined } });

describe("the services container", () => {
  it("builds the engine's ports on first use, once, and each costly port when a node first asks for it", () => {
    const { env: watched, read } = watchedEnv();
    const services = servicesOver(watched);
    expect(PORT_NAMES.filter((n) => read.has(n))).toEqual([]);

    const runtime = services.runtime;
    expect(services.runtime).toBe(runtime);
    expect(read.has("OPENAI_BASE_URL")).toBe(false);
    expect(runtime.providers.OPENAI_BASE_URL).toBe((env as unknown as Env).OPENAI_BASE_URL);
    expect(read.has("OPENAI_BASE_URL")).toBe(true);
    expect(runtime.providers).toBe(runtime.providers);
  });

  it("lets a Cron tick with no slot due run without building any port", async () => {
    const { env: watched, read } = watchedEnv();
    // A tick at the epoch: no schedule's next slot is that old, whatever other tests saved.
    expect(await runScheduleTick(servicesOver(watched), 0)).toEqual({ due: 0, claimed: 0, started: 0, failed: 0 });
    expect(read.has("DB")).toBe(false); // the database came in as the container's client
    expect(PORT_NAMES.filter((n) => read.has(n))).toEqual([]);
  });
});
