// Keys that come from a file or a user (session ids, attribute names) written into plain objects.

/**
 * `target[key] = value`, except that "__proto__" is defined as an own property: assigned, it
 * would set the object's prototype and the value would be lost. Other keys are assigned, which
 * keeps V8's fast properties (a prototype-less object is a slow dictionary).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
