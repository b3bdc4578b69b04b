// Scrubs credentials out of text that leaves the worker: error bodies, stream `error` frames, stored
// error records and logs. Two passes: the values known to be secret (a provider call's key, a run's
// decrypted credentials, the worker's own secrets) wherever they appear, then anything shaped like
// an authorization header, a bearer token or a key in a URL, whatever its value — so a provider
// that echoes a header we never saw still does not carry it out.

const REDACTED = "[redacted]";

/** Shorter values are not treated as secrets: replacing them would garble messages, not protect anything. */
const MIN_SECRET_LENGTH = 6;

// A token worth hiding: 8+ characters with a digit, or 20+ of any (so "Bearer token" in prose stays).
const TOKEN = String.raw`(?:(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}|[A-Za-z0-9._~+/=-]{20,})`;

const PATTERNS: Array<[RegExp, string]> = [
  // Header lines and JSON/form fields: `Authorization: Bearer x`, `"api-key":"x"`, `x-api-key=x`.
  [
    new RegExp(
      String.raw`\b((?:proxy-)?authorization|x-api-key|api-key|api_key|apikey|x-goog-api-key|ocp-apim-subscription-key)` +
        String.raw`(["']?\s*[:=]\s*["']?)(?!(?:(?:bearer|basic|token|digest)\s+)?\[redacted\])` +
        String.raw`(?:(?:bearer|basic|token|digest)\s+)?[^\s"',;&}\]]+`,
      "gi",
    ),
    `$1$2${REDACTED}`,
  ],
  // A credential after an auth scheme anywhere in the text.
  [new RegExp(String.raw`\b(bearer|basic|token)\s+${TOKEN}`, "gi"), `$1 ${REDACTED}`],
  // Key shapes providers use (OpenAI and compatible: sk-…, sk-proj-…).
  [/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED],
  // user:password@ in URLs.
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, `$1${REDACTED}@`],
  // Keys in query strings.
  [/([?&](?:api[-_]?key|key|token|access_token|sig|signature|secret)=)[^&\s"'#]+/gi, `$1${REDACTED}`],
];

/** A value and the forms it takes when quoted into JSON or a URL. */
function formsOf(secret: string): string[] {
  const forms = new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
  return [...forms];
}

/** `text` without the given secret values and without anything shaped like a credential. */
export function redact(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  const values = [...new Set(secrets)].filter((s) => typeof s === "string" && s.length >= MIN_SECRET_LENGTH);
  values.sort((a, b) => b.length - a.length); // a key containing another is hidden whole
  for (const value of values) for (const form of formsOf(value)) out = out.split(form).join(REDACTED);
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** The error itself, its message (and stack) redacted in place, so its class and status are kept. */
export function redactError<E>(err: E, secrets: Iterable<string> = []): E {
  if (!(err instanceof Error)) return err;
  const list = [...secrets];
  err.message = redact(err.message, list);
  if (typeof err.stack === "string") err.stack = redact(err.stack, list);
  return err;
}

/** The secret parts of request headers: every value of a header carrying a credential, and its token. */
export function headerSecrets(headers: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!/authorization|api-?key|token|secret|cookie|subscription-key/i.test(name) || !value) continue;
    out.push(value);
    const token = /^\s*(?:bearer|basic|token)\s+(.+)$/i.exec(value)?.[1];
    if (token) out.push(token.trim());
  }
  return out;
}

const SECRET_FIELD = /key|secret|token|passw|pass$|auth|signature|cookie/i;

/**
 * The secret values of a decrypted credential: fields named like a key, secret, token or password,
 * and any other value shaped like a token (16+ characters, no spaces, not a URL). Names such as a
 * deployment or a base path stay readable in error messages.
 */
export function credentialSecrets(data: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [field, value] of Object.entries(data)) {
    if (typeof value !== "string" || !value) continue;
    if (SECRET_FIELD.test(field) || (value.length >= 16 && !/\s/.test(value) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value))) out.push(value);
  }
  return out;
}

/** An error for a log line: its stack when it has one (which starts with its message). */
export function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
}
