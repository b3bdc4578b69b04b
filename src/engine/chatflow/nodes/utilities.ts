// Utility nodes. Sticky notes are comments: the planner never builds them, but they are known.
import type { NodeDefinition } from "../types";

export const utilityNodes: NodeDefinition[] = [{ name: "stickyNote", category: "Utilities", build: async () => undefined }];
