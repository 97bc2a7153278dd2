/** Reading JSON or YAML that nothing has checked yet (a file, an answer): an object, a list, or neither. */
export type Unchecked = Record<string, unknown>;

export const isObject = (value: unknown): value is Unchecked => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value when it is a list, else an empty one. */
export const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
