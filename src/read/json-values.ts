// How many values a JSON text would parse into, told without parsing it: JSON.parse builds ~56
// bytes of heap a value (~28 a character of `[[[…]]]`), so a record's text alone does not bound
// what reading it costs; its count of values does (issue 53).
/**
 * The most arrays, objects and elements one record (a line of JSON lines, one of concatenated
 * objects) may hold. JSON.parse builds ~56 bytes of heap per value (~28 per character of
 * `[[[…]]]`): past this, ~60 MB, the record is skipped unparsed, so that no line's size decides
 * the heap (issue 53). Real records hold thousands; a whole-file document is read whole as before.
 */
export const MAX_RECORD_VALUES = 1024 * 1024;

export const TOO_MANY_VALUES_REASON = `too many values for one record (over ${MAX_RECORD_VALUES.toLocaleString('en-US')} arrays, objects and elements): skipped unparsed`;

/**
 * Whether `text` holds more than MAX_RECORD_VALUES values, told without parsing: every array and
 * object opens with a bracket and every further element follows a comma, outside strings, so
 * their count bounds what JSON.parse would build. A text shorter than the bound cannot pass it.
 */
export function hasTooManyValues(text: string, limit = MAX_RECORD_VALUES): boolean {
  return text.length > limit && countJsonValues(text, limit) > limit;
}

/**
 * The brackets opening arrays and objects and the commas between elements, outside strings, in
 * `text` (a whole JSON text or one of its lines, as no string spans lines): counted up to just
 * past `limit`.
 */
export function countJsonValues(text: string, limit: number): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      continue;
    }
    if ((c === OPEN_ARRAY || c === OPEN_OBJECT || c === COMMA) && ++count > limit) return count;
  }
  return count;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const COMMA = 0x2c;

/** The index of the quote closing the string opened at `open` (the text's end if none): strings are skipped by indexOf, not walked. */
function stringEnd(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
}
