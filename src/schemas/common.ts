import { z } from "@hono/zod-openapi";
import { UUID_PATTERN } from "../lib/ids";
import { MAX_JSON_DEPTH, jsonTooDeep } from "../lib/json-depth";

const utf8 = new TextEncoder();

/** A UUID, normalised to lower case so ids match however a client spells them. */
export const uuid = () =>
  z
    .string()
    .regex(UUID_PATTERN, "must be a UUID")
    .transform((s) => s.toLowerCase())
    .openapi({ type: "string", format: "uuid", example: "6f1c2a8e-3b7d-4c1e-9a2f-0d4e5b6c7a8b" });

/** Text bounded in UTF-8 bytes: D1 rows top out at 2 MB, so oversize input must fail validation. */
export const text = (maxBytes: number) =>
  z.string().refine((s) => s.length <= maxBytes && utf8.encode(s).length <= maxBytes, {
    message: `must be at most ${maxBytes} bytes`,
  });

export const name = () => text(1000).pipe(z.string().trim().min(1, "must not be empty"));

/** The parsed value, or `invalid` when the string is not JSON (or not an object when one is required). */
function parsedJson(s: string, objectOnly: boolean): unknown {
  try {
    const value = JSON.parse(s);
    return !objectOnly || (typeof value === "object" && value !== null && !Array.isArray(value)) ? value : invalid;
  } catch {
    return invalid;
  }
}
const invalid = Symbol("invalid");

/**
 * A field typed "JSON serialized as a string": stored and returned as the string itself. Nested at
 * most MAX_JSON_DEPTH levels, so what reads it later (the engine, over flowData) cannot overflow.
 */
export const jsonString = (maxBytes = 200_000, objectOnly = false) =>
  text(maxBytes)
    .superRefine((s, ctx) => {
      const value = parsedJson(s, objectOnly);
      if (value === invalid)
        ctx.addIssue({
          code: "custom",
          message: objectOnly ? "must be a JSON object serialized as a string" : "must be JSON serialized as a string",
        });
      else if (jsonTooDeep(value)) ctx.addIssue({ code: "custom", message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` });
    })
    .openapi({ type: "string", example: "{}" });

export const IdParam = z.object({ id: uuid() });
export const ChatflowIdParam = z.object({ chatflowid: uuid() });

/** Boolean query parameters take `true`/`false` only. */
export const boolQuery = () => z.enum(["true", "false"], { message: "must be true or false" }).transform((v) => v === "true");

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A date or date-time query bound. A bare date means the start of that day for a lower bound
 * and its last millisecond for an upper bound, so `endDate=2026-01-31` includes the 31st.
 */
export const dateQuery = (bound: "start" | "end") =>
  z
    .string()
    .transform((value, ctx) => {
      const time = ISO_DATE.test(value)
        ? Date.parse(`${value}T${bound === "start" ? "00:00:00.000" : "23:59:59.999"}Z`)
        : /^\d{4}-\d{2}-\d{2}T/.test(value)
          ? Date.parse(value)
          : NaN;
      // Date.parse rolls impossible days over (2026-02-30 → March 2): refuse those instead.
      const rolledOver =
        !Number.isNaN(time) && !/[+-]\d{2}:?\d{2}$/.test(value) && new Date(time).toISOString().slice(0, 10) !== value.slice(0, 10);
      if (Number.isNaN(time) || rolledOver) {
        ctx.addIssue({ code: "custom", message: "must be an ISO 8601 date or date-time" });
        return z.NEVER;
      }
      return new Date(time).toISOString();
    })
    .openapi({ type: "string", format: "date-time" });

const positiveInt = (max: number) =>
  z.string().regex(/^\d+$/, "must be a positive integer").transform(Number).pipe(z.number().int().min(1).max(max));

/** `?page=N&limit=M`: either present switches a list to `{data, total}`. */
export const PageQuery = z.object({
  page: positiveInt(1_000_000).optional(),
  limit: positiveInt(1000).optional(),
});
export type PageQueryInput = z.infer<typeof PageQuery>;

export const ErrorResponse = z
  .object({
    statusCode: z.number().int(),
    success: z.literal(false),
    message: z.string(),
    stack: z.union([z.object({}), z.string()]),
  })
  .openapi("Error");

export const DeletedResponse = z.object({ deleted: z.number().int() }).openapi("Deleted");

/** A list answer: an array, or `{data, total}` when paging was asked for. */
export const listOf = <T extends z.ZodType>(item: T) =>
  z.union([z.array(item), z.object({ data: z.array(item), total: z.number().int() })]);
