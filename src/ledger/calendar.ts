// Calendar arithmetic in a named time zone (IANA), with nothing but Intl: a wall-clock date and time
// in a zone to an instant and back, ISO weeks, and the day, week or month an instant falls in.
// Pure: the zone is always given, never read from the machine here.

export const PERIOD_UNITS = ['day', 'week', 'month'] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];

/** A wall-clock date and time (month 1-12). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether Intl knows this zone name (`Europe/Berlin`, `UTC`, …). */
export function isTimeZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock in `zone` at instant `ms`. */
function wallTime(ms: number, zone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts['year']!, month: parts['month']!, day: parts['day']!, hour: parts['hour']! % 24, minute: parts['minute']!, second: parts['second']! };
}

const utcOf = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/** `zone`'s offset from UTC at instant `ms`, in milliseconds (whole seconds). */
function offsetAt(ms: number, zone: string): number {
  return utcOf(wallTime(ms, zone)) - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant a wall-clock time in `zone` names. Around a change of offset the offset is looked up
 * twice; a time skipped by the change (spring forward) lands just after it.
 */
export function instantOf(w: WallTime, zone: string): number {
  const guess = utcOf(w);
  const first = guess - offsetAt(guess, zone);
  const second = guess - offsetAt(first, zone);
  return offsetAt(second, zone) === offsetAt(first, zone) ? second : Math.max(first, second);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `2026-11-30T09:05:00+01:00`: the instant on `zone`'s wall clock, with its offset. */
export function isoInZone(ms: number, zone: string): string {
  const w = wallTime(ms, zone);
  const off = offsetAt(ms, zone) / 60000;
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** `2026-11-30 09:05` on `zone`'s wall clock: how the human formats show a time. */
export function shortStamp(ms: number, zone: string): string {
  const w = wallTime(ms, zone);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}`;
}

/** Days since 1970-01-01 of a calendar date (no zone: a date is a date). */
const dayNumber = (year: number, month: number, day: number) => Math.floor(Date.UTC(year, month - 1, day) / 86_400_000);

function dateOfDay(n: number): { year: number; month: number; day: number } {
  const d = new Date(n * 86_400_000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** ISO 8601 week of a date: the week's year (it may differ from the date's near New Year) and number. */
function isoWeek(year: number, month: number, day: number): { year: number; week: number } {
  const n = dayNumber(year, month, day);
  const weekday = (((n + 3) % 7) + 7) % 7; // Monday 0: 1970-01-01 was a Thursday.
  const thursday = n - weekday + 3;
  const weekYear = dateOfDay(thursday).year;
  const firstThursday = (() => {
    const jan4 = dayNumber(weekYear, 1, 4);
    return jan4 - ((((jan4 + 3) % 7) + 7) % 7) + 3;
  })();
  return { year: weekYear, week: 1 + Math.round((thursday - firstThursday) / 7) };
}

/** The period an instant falls in on `zone`'s calendar: its label and its bounds [start, end). */
export interface CalendarPeriod {
  /** `2026-11-30`, `2026-W48` or `2026-11`. */
  label: string;
  startMs: number;
  endMs: number;
}

export function periodOf(ms: number, unit: PeriodUnit, zone: string): CalendarPeriod {
  const w = wallTime(ms, zone);
  const midnight = (n: number) => {
    const d = dateOfDay(n);
    return instantOf({ ...d, hour: 0, minute: 0, second: 0 }, zone);
  };
  const today = dayNumber(w.year, w.month, w.day);
  if (unit === 'day') {
    return { label: `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`, startMs: midnight(today), endMs: midnight(today + 1) };
  }
  if (unit === 'week') {
    const monday = today - ((((today + 3) % 7) + 7) % 7);
    const { year, week } = isoWeek(w.year, w.month, w.day);
    return { label: `${pad(year, 4)}-W${pad(week)}`, startMs: midnight(monday), endMs: midnight(monday + 7) };
  }
  const first = dayNumber(w.year, w.month, 1);
  const next = w.month === 12 ? dayNumber(w.year + 1, 1, 1) : dayNumber(w.year, w.month + 1, 1);
  return { label: `${pad(w.year, 4)}-${pad(w.month)}`, startMs: midnight(first), endMs: midnight(next) };
}
