// The Drizzle schema, one file per area (drizzle.config.ts reads this folder; migrations/ is
// generated from it with `npm run db:generate`).
export * from "./access";
export * from "./chat";
export * from "./documents";
export * from "./executions";
export * from "./flows";
