/** The message of whatever was thrown: an Error's message, anything else as text. */
export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
