// Flowise's Analytic category: arize, langFuse, langSmith, LangWatch, lunary, opik and phoenix are
// descriptors only in Flowise (no init: each names the credential its tracing uses). Tracing itself is
// switched on by the chatflow's `analytic` (src/services/tracing/, docs/tracing.md); on a canvas these
// nodes build nothing, as in Flowise, so a flow holding one still runs.
import type { NodeDefinition } from "../types";

export const analyticNodes: NodeDefinition[] = ["arize", "langFuse", "langSmith", "LangWatch", "lunary", "opik", "phoenix"].map((name) => ({
  name,
  category: "Analytic",
  build: async () => undefined,
}));
