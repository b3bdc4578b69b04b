// Every benchmark scenario, in the order they run (later issues append theirs to a family file).
import { crudScenarios } from "./crud.mjs";
import { documentScenarios } from "./documents.mjs";
import { streamingScenarios } from "./streaming.mjs";

export const SCENARIOS = [...crudScenarios, ...streamingScenarios, ...documentScenarios];
