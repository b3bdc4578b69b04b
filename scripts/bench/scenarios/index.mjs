// Every benchmark scenario, in the order they run (later issues append theirs to a family file).
import { crudScenarios } from "./crud.mjs";
import { documentScenarios } from "./documents.mjs";
import { firstTokenTripScenarios } from "./first-token-trips.mjs";
import { mcpScenarios } from "./mcp.mjs";
import { openaiScenarios } from "./openai.mjs";
import { ingestionScenarios } from "./ingestion.mjs";
import { predictionJsonScenarios } from "./prediction-json.mjs";
import { runtimeFloorScenarios } from "./runtime-floor.mjs";
import { streamingScenarios } from "./streaming.mjs";
import { triggerScenarios } from "./triggers.mjs";

export const SCENARIOS = [
  ...runtimeFloorScenarios,
  ...crudScenarios,
  ...streamingScenarios,
  ...predictionJsonScenarios,
  ...mcpScenarios,
  ...openaiScenarios,
  ...firstTokenTripScenarios,
  ...triggerScenarios,
  ...documentScenarios,
  ...ingestionScenarios,
];
