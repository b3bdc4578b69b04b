// The runtime's own floor on this machine: a hello-world worker served the way `npm start` serves
// edgeflow (Miniflare's API, workerd listening itself), measured with the same client. It tells a
// slow machine from slow code: edgeflow's figures read best as multiples of it (the issue's
// 0.51 ms for plain workerd was taken on another machine).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../server.mjs";

export const runtimeFloorScenarios = [
  {
    name: "GET / on a hello-world worker (workerd's own floor, not edgeflow)",
    async setup(ctx) {
      const { Miniflare, convertV4MiniflareOptions } = await import("miniflare");
      const dir = mkdtempSync(join(tmpdir(), "edgeflow-bench-hello-"));
      writeFileSync(join(dir, "index.js"), 'export default { fetch: () => new Response("pong") };\n');
      const port = await freePort();
      const mf = new Miniflare(
        convertV4MiniflareOptions({
          host: "127.0.0.1",
          port,
          cf: false,
          workers: [
            {
              name: "hello",
              modulesRoot: dir,
              modules: [{ type: "ESModule", path: join(dir, "index.js") }],
              compatibilityDate: "2025-01-01",
            },
          ],
        }),
      );
      this.url = new URL("/", await mf.ready).href;
      ctx.onCleanup(async () => {
        await mf.dispose();
        rmSync(dir, { recursive: true, force: true });
      });
      return this.url;
    },
    request() {
      return { method: "GET", url: this.url };
    },
  },
];
