/** D1 binds at most 100 parameters per statement; id lists are split to stay under it. */
export const D1_MAX_PARAMS = 100;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
