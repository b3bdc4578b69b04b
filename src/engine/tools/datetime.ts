// currentDateTime: today's date, time and weekday from the run's clock. Workers run in UTC, so the
// time zone is UTC (Flowise answers in its server's zone; these are the same fields).
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import type { ToolDeps } from "./types";

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export async function currentDateTimeTool(_inputs: Record<string, unknown>, { ctx }: ToolDeps): Promise<DynamicStructuredTool> {
  return new DynamicStructuredTool({
    name: "current_date_time",
    description: "Useful to get current day, date and time.",
    schema: z.object({}),
    func: async () => {
      const now = new Date(ctx.runtime.clock.now());
      const iso = now.toISOString();
      return JSON.stringify({
        date: iso.slice(0, 10),
        time: iso.slice(11, 19),
        day: DAYS[now.getUTCDay()],
        timezone: "UTC",
        timezoneOffset: "+00:00",
        iso8601: iso,
        unix_timestamp: Math.floor(now.getTime() / 1000),
      });
    },
  });
}
