import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { buildAssets } from "./scripts/lib/assets.mjs";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  await buildAssets(); // wrangler.toml's [assets] directory: the worker reads files from it

  return {
    // The bundle's [alias] entries for LangSmith (wrangler.toml), so that tests run what is deployed.
    resolve: {
      alias: [{ find: /^langsmith(\/run_trees|\/singletons\/traceable)?$/, replacement: "/src/lib/langsmith-stub.ts" }],
    },
    plugins: [
      cloudflareTest({
        // Tests run the real Worker (src/index.ts) on local D1/R2 from the `local` environment.
        wrangler: { configPath: "./wrangler.toml", environment: "local" },
        remoteBindings: false,
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            ADMIN_API_KEY: "test-admin-key",
            JWT_SECRET: "test-jwt-secret",
            CREDENTIAL_ENCRYPTION_KEY: "test-credential-key",
            ENVIRONMENT: "test",
          },
          // Workers AI and Vectorize have no local simulation: stand-ins (test/providers/
          // standin-worker.mjs) provide them as JS RPC service bindings, so the Cloudflare code
          // paths run in tests. (A config-declared ai binding would call out to the network.)
          // A second D1 database, the one sqlDatabaseChain tests query (test/engine/sql-chain.test.ts).
          d1Databases: { SQL_SAMPLE: "sql-sample" },
          serviceBindings: {
            AI: { name: "cloudflare-standins", entrypoint: "AiStandin" },
            VECTORIZE: { name: "cloudflare-standins", entrypoint: "VectorizeStandin" },
          },
          workers: [
            {
              name: "cloudflare-standins",
              modules: true,
              scriptPath: "./test/providers/standin-worker.mjs",
              compatibilityDate: "2026-11-01",
            },
          ],
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup.ts"],
      // Node-side: starts the OpenAI-compatible stand-in the engine tests call (inject("standinUrl")).
      globalSetup: ["./test/standin/global-setup.mjs"],
      include: ["test/**/*.test.ts"],
      // One worker module graph for every file, files one after another: per-file isolation cost
      // ~8 s of CPU per file (transforming and loading the worker again), 13+ minutes for the suite
      // against ~3 without it. So storage is shared between files too: a test never assumes a
      // table holds only its own rows (ids it made, unique names, counts taken before and after).
      // `npm test` runs two such processes side by side, as shards (scripts/test.mjs).
      isolate: false,
      fileParallelism: false,
    },
  };
});
