/** Walks an error's `cause` chain (Drizzle wraps D1's errors) looking for a message. */
function messages(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof Error) {
      parts.push(current.message);
      current = (current as Error & { cause?: unknown }).cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(" | ");
}

/** True when the error is SQLite refusing a duplicate for `table.column`. */
export function isUniqueViolation(err: unknown, tableColumn: string): boolean {
  const text = messages(err);
  return text.includes("UNIQUE constraint failed") && text.includes(tableColumn);
}

/** True when SQLite refused a value as too big (D1 caps strings and rows at about 2 MB). */
export function isTooBig(err: unknown): boolean {
  return /SQLITE_TOOBIG|too big|string or blob too big/i.test(messages(err));
}
