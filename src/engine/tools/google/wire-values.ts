// Values as Google's APIs take them (each refuses others with a 400): Calendar's RFC 3339 bounds and
// freebusy maxima, Drive's q-syntax strings and the partial-response fields that keep paging alive.

/**
 * A bound as RFC 3339 with an offset, which events.list requires (a 400 without one): a date alone is
 * its midnight and a date-time without offset is read as UTC (the zone events default to here).
 */
export function rfc3339(value: unknown): string | undefined {
  const text = typeof value === "string" ? value.trim() : "";
  if (!text) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return `${text}T00:00:00Z`;
  if (/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) {
    const [date, time] = text.split(/[Tt ]/);
    return `${date}T${time.length === 5 ? `${time}:00` : time}Z`;
  }
  return text;
}

/** A freebusy expansion within Google's documented maximum (calendarExpansionMax 50, groupExpansionMax 100). */
export const atMost = (value: unknown, max: number): number | undefined =>
  value === undefined ? undefined : Math.min(Math.max(Math.floor(Number(value)) || 1, 1), max);

/** A value quoted for Drive's q syntax: a backslash and a single quote are escaped with a backslash. */
export const driveString = (value: unknown): string => `'${String(value ?? "").replace(/[\\']/g, (c) => `\\${c}`)}'`;

/** A partial response keeps nextPageToken (else Drive leaves it out and the list stops at one page). */
export const pagedFields = (fields: string | undefined) =>
  !fields || fields.includes("*") || /\bnextPageToken\b/.test(fields) ? fields : `nextPageToken,${fields}`;
