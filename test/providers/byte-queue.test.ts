// ByteQueue (src/lib/bytes.ts): the socket reader of the MongoDB, MySQL and Bolt clients. Messages
// are taken whole whatever the chunks they came in, and bytes are neither lost nor reordered.
import { describe, expect, it } from "vitest";
import { ByteQueue } from "../../src/lib/bytes";

const bytes = (...values: number[]) => new Uint8Array(values);

describe("ByteQueue", () => {
  it("takes messages across chunk boundaries, in order, and peeks without taking", () => {
    const q = new ByteQueue();
    q.push(bytes(1, 2));
    q.push(bytes());
    q.push(bytes(3, 4, 5));
    q.push(bytes(6));
    expect(q.length).toBe(6);
    expect([...q.peek(3)]).toEqual([1, 2, 3]);
    expect(q.length).toBe(6);
    expect([...q.take(1)]).toEqual([1]);
    expect([...q.take(3)]).toEqual([2, 3, 4]);
    expect([...q.peek(2)]).toEqual([5, 6]);
    expect([...q.take(2)]).toEqual([5, 6]);
    expect(q.length).toBe(0);
    expect(() => q.take(1)).toThrow(RangeError);
  });

  it("finds a byte across chunks, counted from the next byte to take", () => {
    const q = new ByteQueue();
    q.push(bytes(1, 2, 3));
    q.push(bytes(4, 10, 6));
    expect(q.indexOf(10)).toBe(4);
    q.take(2);
    expect(q.indexOf(10)).toBe(2);
    expect(q.indexOf(1)).toBe(-1);
  });

  it("reassembles a large reply from many small chunks byte for byte", () => {
    const q = new ByteQueue();
    const size = 3 * 1024 * 1024 + 7;
    const source = new Uint8Array(size).map((_, i) => (i * 31 + 7) & 0xff);
    for (let at = 0; at < size; at += 16_384) q.push(source.slice(at, at + 16_384));
    const head = q.take(5);
    const body = q.take(size - 5);
    expect([...head]).toEqual([...source.subarray(0, 5)]);
    expect(body.length).toBe(size - 5);
    expect(body.every((b, i) => b === source[i + 5])).toBe(true);
    expect(q.length).toBe(0);
  });
});
