// A text longer than a speech service takes in one request (OpenAI TTS: 4096 characters) is spoken
// in parts, one request each, their audio streamed one after another: the listener hears the whole
// answer, where cutting it would silently drop its end. Parts end after a sentence where one ends in
// the part's second half, else after a line or a word, else at the limit.

/** A sentence's end (and any closing quote or bracket), then white space; a line's end; a space. */
const BREAKS = [/[.!?…。！？]["'”’)\]]*\s/g, /\n/g, /\s/g];

/** Where to end a part that is `head` (UTF-16 index): after the last break in its second half, else its end. */
function cutOf(head: string): number {
  for (const pattern of BREAKS) {
    let at = -1;
    for (const m of head.matchAll(pattern)) at = m.index + m[0].length;
    if (at > head.length / 2) return at;
  }
  return head.length;
}

/** `text` in parts of at most `max` characters (code points, as the services count them). */
export function speechParts(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  for (;;) {
    const points = Array.from(rest);
    if (points.length <= max) break;
    const head = points.slice(0, max).join("");
    const cut = cutOf(head);
    parts.push(head.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) parts.push(rest);
  return parts;
}

/** One stream of `first`'s bytes, then each of `next`'s, asked for only when the one before has ended. */
export function oneAfterAnother(
  first: ReadableStream<Uint8Array>,
  next: Array<() => Promise<ReadableStream<Uint8Array>>>,
): ReadableStream<Uint8Array> {
  let reader = first.getReader();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        if (i >= next.length) return controller.close();
        reader = (await next[i++]()).getReader();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
