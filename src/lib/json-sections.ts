// Reads a large JSON document of the shape `{"Name": [record, record, …], "Other": …}` as it
// streams in, one record at a time: each element of a top-level array is answered as its own JSON
// text (for JSON.parse), so a 50 MB export never has to be held, parsed or built in memory whole.
// The top level is checked as JSON (object, keys, colons, commas); each record's own text is left
// to JSON.parse. Top-level values that are not arrays (Flowise's `FileDefaultName`) are skipped.
import { ApiError } from "../errors";

export interface SectionRecord {
  /** The top-level key the array is under. */
  section: string;
  /** 0-based position in that array. */
  index: number;
  /** The element's JSON text. */
  text: string;
}

enum Tok {
  Space,
  Quote,
  Backslash,
  Open,
  Close,
  Colon,
  Comma,
  Other,
}

const KIND = new Uint8Array(128).fill(Tok.Other);
for (const c of [" ", "\t", "\n", "\r"]) KIND[c.charCodeAt(0)] = Tok.Space;
KIND['"'.charCodeAt(0)] = Tok.Quote;
KIND["\\".charCodeAt(0)] = Tok.Backslash;
KIND["{".charCodeAt(0)] = Tok.Open;
KIND["[".charCodeAt(0)] = Tok.Open;
KIND["}".charCodeAt(0)] = Tok.Close;
KIND["]".charCodeAt(0)] = Tok.Close;
KIND[":".charCodeAt(0)] = Tok.Colon;
KIND[",".charCodeAt(0)] = Tok.Comma;

// Where the reader is in the top-level object (records and skipped values are tracked by depth).
enum At {
  Start, // before `{`
  Key, // expecting a key or `}`
  KeyOrEnd, // right after `{`: a key or `}`
  InKey, // inside the key's string
  Colon, // after a key
  Value, // after the colon
  Skip, // inside a value that is not an array
  ArrayItem, // in a section, expecting an element or `]`
  ArrayItemOrEnd, // right after `[`
  InItem, // inside an element
  ArrayNext, // after an element: `,` or `]`
  Next, // after a value: `,` or `}`
  Done, // after the closing `}`
}

const MAX_KEY_CHARS = 200;

/**
 * The records of every top-level array, in document order. `maxRecordChars` bounds one record (its
 * text is held whole); a larger one is a 400 naming it.
 */
export async function* readSections(body: ReadableStream<Uint8Array>, maxRecordChars: number): AsyncGenerator<SectionRecord> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const reader = body.getReader();
  let at = At.Start as At;
  let depth = 0; // brackets open inside the current element or skipped value
  let inString = false;
  let escaped = false;
  let key = "";
  let section = "";
  let index = 0;
  let item = ""; // the element's text from earlier chunks
  let offset = 0; // characters read before this chunk, for messages
  const fail = (message: string, pos: number): never => {
    throw new ApiError("BAD_REQUEST", `The import file is not valid JSON: ${message} at character ${offset + pos}`);
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      let text: string;
      try {
        text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      } catch {
        throw new ApiError("BAD_REQUEST", "The import file is not valid UTF-8 text");
      }
      let itemStart = at === At.InItem ? 0 : -1;
      let keyStart = at === At.InKey ? 0 : -1;
      const records: SectionRecord[] = [];
      const endItem = (end: number) => {
        const full = item + text.slice(itemStart, end);
        item = "";
        itemStart = -1;
        records.push({ section, index: index++, text: full });
      };
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        const kind = code < 128 ? KIND[code] : Tok.Other;
        if (inString) {
          if (escaped) escaped = false;
          else if (kind === Tok.Backslash) escaped = true;
          else if (kind === Tok.Quote) {
            inString = false;
            if (at === At.InKey) {
              const raw = key + text.slice(keyStart, i + 1);
              keyStart = -1;
              key = "";
              try {
                section = JSON.parse(raw) as string;
              } catch {
                fail("a key that is not a JSON string", i);
              }
              at = At.Colon;
            }
          }
          continue;
        }
        if (kind === Tok.Space) continue;
        switch (at) {
          case At.Start:
            if (code !== 0x7b) fail("the file must be a JSON object (Flowise's export file)", i);
            at = At.KeyOrEnd;
            break;
          case At.Key:
          case At.KeyOrEnd:
            if (kind === Tok.Quote) {
              inString = true;
              at = At.InKey;
              keyStart = i;
            } else if (code === 0x7d && at === At.KeyOrEnd) at = At.Done;
            else fail("expected a key", i);
            break;
          case At.Colon:
            if (kind !== Tok.Colon) fail("expected ':' after a key", i);
            at = At.Value;
            break;
          case At.Value:
            if (code === 0x5b) {
              at = At.ArrayItemOrEnd;
              index = 0;
            } else {
              at = At.Skip;
              depth = 0;
              i--; // read the value's first character again as part of it
            }
            break;
          case At.Skip:
            if (kind === Tok.Quote) inString = true;
            else if (kind === Tok.Open) depth++;
            else if (kind === Tok.Close && depth > 0) depth--;
            else if (depth === 0 && (kind === Tok.Comma || kind === Tok.Close)) {
              at = At.Next;
              i--;
            }
            break;
          case At.ArrayItem:
          case At.ArrayItemOrEnd:
            if (code === 0x5d && at === At.ArrayItemOrEnd) {
              at = At.Next;
              break;
            }
            if (kind === Tok.Comma || kind === Tok.Close || kind === Tok.Colon) fail(`expected a record in "${section}"`, i);
            at = At.InItem;
            itemStart = i;
            depth = 0;
            i--;
            break;
          case At.InItem:
            if (kind === Tok.Quote) inString = true;
            else if (kind === Tok.Open) depth++;
            else if (kind === Tok.Close && depth > 0) depth--;
            else if (depth === 0 && (kind === Tok.Comma || kind === Tok.Close)) {
              if (code === 0x7d) fail(`unexpected '}' in "${section}"`, i);
              endItem(i);
              at = code === 0x5d ? At.Next : At.ArrayItem;
            }
            break;
          case At.Next:
            if (kind === Tok.Comma) at = At.Key;
            else if (code === 0x7d) at = At.Done;
            else fail("expected ',' or '}'", i);
            break;
          case At.Done:
            fail("unexpected text after the end of the object", i);
            break;
          default:
            break;
        }
      }
      if (at === At.InItem && itemStart >= 0) {
        item += text.slice(itemStart);
        if (item.length > maxRecordChars)
          throw new ApiError("BAD_REQUEST", `The import file's record ${section}[${index}] is larger than ${maxRecordChars} characters`);
      }
      if (at === At.InKey && keyStart >= 0) {
        key += text.slice(keyStart);
        if (key.length > MAX_KEY_CHARS) fail("a key longer than 200 characters", text.length);
      }
      for (const record of records) {
        if (record.text.length > maxRecordChars)
          throw new ApiError(
            "BAD_REQUEST",
            `The import file's record ${record.section}[${record.index}] is larger than ${maxRecordChars} characters`,
          );
        yield record;
      }
      offset += text.length;
      if (done) break;
    }
  } finally {
    reader.releaseLock();
  }
  if (inString || at !== At.Done)
    throw new ApiError(
      "BAD_REQUEST",
      at === At.Start
        ? "The import file is empty: send Flowise's export file (a JSON object)"
        : "The import file is not valid JSON: it ends before its object closes",
    );
}
