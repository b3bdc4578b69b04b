import { defineConfig } from "drizzle-kit";

// drizzle-kit writes SQL straight into wrangler's migrations_dir.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema",
  out: "./migrations",
});
