// The layering of src/, checked by `npm run check` (dependency-cruiser). Dependencies point down:
//
//   index.ts, app.ts          the Worker's entry and the app's composition (may import anything)
//   routes/ middleware/ queue/ detached/ schedule/ triggers: HTTP routes, HTTP middleware, the queue
//                             consumer, detached runs' Workflow, the Cron Trigger
//   auth/                     bearer, JWT and the guards routes declare (they ask services/)
//   services/ rate-limit/     the rules, free of HTTP; services/runtime builds the engine's ports
//   schemas/ stream/          the contract: zod request/response shapes, the Flowise SSE writer
//   engine/                   runs flows through ports: agentflow-v1 → agentflow → chatflow → tools → core
//   providers/ sandbox/       models, stores, loaders…; the QuickJS sandbox (neither knows the other)
//   lib/ db/ env.ts config.ts errors.ts the foundation: helpers, the Drizzle schema, config types and the one parsed configuration, ApiError
//
// A layer may import any layer below it, never one above; a few skips are forbidden too (routes go
// through services, the engine never touches the database or the Worker's env). No cycle between
// files, nor between folders. To see the graph: `npx depcruise src --output-type archi | dot -T svg`.

/** Layers, top first: each rule below forbids an import from a lower layer into a higher one. */
const LAYERS = [
  { name: "entry", path: "^src/(index|app)\\.ts$" },
  { name: "triggers", path: "^src/(routes|middleware|queue|detached|schedule)/" },
  { name: "auth", path: "^src/auth/" },
  { name: "services", path: "^src/(services|rate-limit)/" },
  { name: "contract", path: "^src/(schemas|stream)/" },
  { name: "engine", path: "^src/engine/" },
  { name: "adapters", path: "^src/(providers|sandbox)/" },
  { name: "foundation", path: "^src/(lib|db)/|^src/(env|errors|config)\\.ts$" },
];

const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `no-up-from-${layer.name}`,
  comment: `${layer.name} must not import ${LAYERS.slice(0, i + 1).map((l) => l.name).join(", ")} (dependencies point down)`,
  severity: "error",
  from: { path: layer.path },
  to: { path: LAYERS.slice(0, i + 1).map((l) => l.path).join("|") },
}));

/** Imports between neighbours of one layer, and skips past a layer, that are forbidden too. */
const sideways = [
  ["http-stays-up", "below auth nothing knows HTTP: no hono import (its zod, @hono/zod-openapi, and its JWT verifier hono/jwt are fine); Hono's context map is declared in middleware/init.ts (a `declare module` is no import, so this rule cannot see one)", "^src/(services|rate-limit|schemas|stream|engine|providers|sandbox|lib|db)/|^src/(env|errors)\\.ts$", "^node_modules/hono/(?!dist/(cjs/|types/)?(utils/|middleware/)?jwt/)"],
  ["middleware-not-routes", "HTTP middleware runs before any route: it must not import one", "^src/middleware/", "^src/routes/"],
  ["routes-not-queue", "routes and the queue consumer are separate triggers", "^src/routes/", "^src/queue/"],
  ["queue-not-http", "the queue consumer is no HTTP request", "^src/queue/", "^src/(routes|middleware)/"],
  ["routes-through-services", "routes are thin: they reach the engine, providers, sandbox and database through services", "^src/routes/", "^src/(engine|providers|sandbox|db)/"],
  ["rate-limit-not-services", "rate-limit is a check services and routes call; it calls none of them", "^src/rate-limit/", "^src/services/"],
  ["schemas-are-leaves", "schemas describe data: zod, enums and helpers only", "^src/schemas/", "^src/(stream|engine|providers|sandbox)/"],
  ["stream-not-schemas", "the SSE writer frames what the engine streams", "^src/stream/", "^src/(schemas|providers|sandbox)/"],
  ["engine-through-ports", "the engine never holds the database or the Worker's env: it reaches them through ports", "^src/engine/", "^src/db/|^src/env\\.ts$"],
  ["providers-not-sandbox", "providers and the sandbox are independent adapters", "^src/providers/", "^src/sandbox/"],
  ["sandbox-not-providers", "providers and the sandbox are independent adapters", "^src/sandbox/", "^src/providers/"],
  ["chat-http-is-providers-own", "providers' HTTP plumbing stays theirs; deadlines, retries and RunAborted live in lib/run-control.ts", "^src/(?!providers/)", "^src/providers/chat/http\\.ts$"],
  ["lib-not-db", "lib holds helpers free of the database", "^src/lib/", "^src/db/"],
  ["db-is-a-leaf", "the Drizzle schema and client import nothing of ours", "^src/db/", "^src/(lib/|env\\.ts$|errors\\.ts$)"],
  ["errors-is-a-leaf", "ApiError imports nothing of ours", "^src/errors\\.ts$", "^src/"],
  ["env-is-low", "the config types import only the database's types", "^src/env\\.ts$", "^src/(lib|engine|providers|sandbox)/|^src/errors\\.ts$"],
  // Inside the engine: agentflow-v1 → agentflow → chatflow → tools → core; index.ts is the door.
  ["engine-door-on-top", "engine/index.ts is the engine's door: the runtimes do not import it", "^src/engine/.+/", "^src/engine/index\\.ts$"],
  ["agentflow-not-v1", "Agentflow V1 registers its nodes into V2's registry; V2 does not know V1", "^src/engine/agentflow/", "^src/engine/agentflow-v1/"],
  ["chatflow-not-agentflow", "agentflows build on chatflow's nodes, not the other way", "^src/engine/chatflow/", "^src/engine/agentflow(-v1)?/"],
  ["tools-not-runtimes", "the tool registry is shared by the runtimes: it imports none of them", "^src/engine/tools/", "^src/engine/(chatflow|agentflow|agentflow-v1)/"],
  // The run door (services/runs/): every trigger and service enters through its index, so what the
  // door offers is one list and its stages stay free to change.
  ["run-door-closed", "services/runs/ is entered through its index only (src/services/runs/index.ts)", "^src/(?!services/runs/)", "^src/services/runs/(?!index\\.ts$)"],
  // Executions (services/executions/) own the execution table: every other file reaches a run's row
  // through their index, so one module holds its lifecycle.
  ["executions-door-closed", "services/executions/ is entered through its index only (src/services/executions/index.ts)", "^src/(?!services/executions/)", "^src/services/executions/(?!index\\.ts$)"],
  ["core-is-core", "engine/core is shared by every runtime: it imports none of them", "^src/engine/core/", "^src/engine/(chatflow|agentflow|agentflow-v1|tools)/"],
].map(([name, comment, from, to]) => ({ name, comment, severity: "error", from: { path: from }, to: { path: to } }));

module.exports = {
  forbidden: [
    ...upward,
    ...sideways,
    {
      name: "no-circular",
      comment: "no import cycle between files",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "no-circular-folders",
      comment: "no import cycle between folders (a folder and its own subfolders may use each other: a registry and its entries)",
      severity: "error",
      scope: "folder",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "src-not-test",
      comment: "the worker never imports test code",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^test/" },
    },
    {
      name: "not-to-unresolvable",
      comment: "every import resolves (cloudflare:* modules are the runtime's own)",
      severity: "error",
      from: { path: "^src/" },
      to: { couldNotResolve: true, pathNot: "^cloudflare:" },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API, so dependency-cruiser parses with swc (it still tells
    // type-only imports apart; they count as dependencies here) and resolves with the extensions
    // below (tsconfig.json has no path aliases to read).
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^test/" },
    builtInModules: { add: ["cloudflare:sockets", "cloudflare:workers"] },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".d.ts", ".js", ".mjs", ".cjs", ".json"],
    },
  },
};
