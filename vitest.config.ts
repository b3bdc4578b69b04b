import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
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
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup.ts"],
      // Node-side: starts the OpenAI-compatible stand-in the engine tests call (inject("standinUrl")).
      globalSetup: ["./test/standin/global-setup.mjs"],
      include: ["test/**/*.test.ts"],
    },
  };
});
