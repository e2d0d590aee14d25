/** Freezes `value` and everything it holds, in place; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** A deep copy, deeply frozen: code given it cannot change what the runtime holds. */
export function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}
