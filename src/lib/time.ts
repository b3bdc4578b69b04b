/** ISO 8601 UTC with milliseconds, the one timestamp format of the API. */
export const nowIso = (): string => new Date().toISOString();
