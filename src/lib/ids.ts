export const newId = (): string => crypto.randomUUID();

/** A UUID in either letter case (ids are stored lower-case, so callers lower-case before comparing). */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);
