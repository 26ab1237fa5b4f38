// `--since`, `--until`, `--timezone` and `--by` (SPEC 0.4 "Time"), read into the run's window and
// period spec. ccusage's spellings where it has one: -s, -u, -z, and its YYYYMMDD dates.

import { type OptionValues } from 'commander';
import { instantOf, isTimeZone, PERIOD_UNITS, type PeriodUnit } from '../ledger/calendar.js';
import type { PeriodSpec } from '../ledger/periods.js';
import type { SessionWindow } from '../ledger/window.js';
import { UsageError } from '../errors.js';
import { choice, text } from './flags.js';

export interface TimeOptions {
  window?: SessionWindow;
  periods?: PeriodSpec;
  /** The zone the human formats show times in, and the calendar of dates and periods. */
  timezone: string;
}

const SPAN_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
const DATE = /^(\d{4})-?(\d{2})-?(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** The user's zone: TZ, else the system's (what Intl resolves). */
export function userTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * One bound: a date (the whole day counts: `--since` from its first moment, `--until` to its last),
 * a date-time on the zone's clock or with its own offset, or a span back from now (`7d`, `12h`, `2w`, `30m`).
 */
function parseMoment(flag: string, value: string, zone: string, nowMs: number, bound: 'since' | 'until'): number {
  const v = value.trim();
  const span = /^(\d+)([mhdw])$/.exec(v);
  if (span) return nowMs - Number(span[1]) * SPAN_UNITS[span[2]!]!;
  const date = DATE.exec(v);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (validDate(year, month, day)) {
      if (bound === 'since') return instantOf({ year, month, day, hour: 0, minute: 0, second: 0 }, zone);
      const next = new Date(Date.UTC(year, month - 1, day + 1));
      return instantOf({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate(), hour: 0, minute: 0, second: 0 }, zone) - 1;
    }
  }
  if (WITH_OFFSET.test(v)) {
    const ms = Date.parse(v.replace(' ', 'T'));
    if (Number.isFinite(ms)) return ms;
  }
  const dt = DATE_TIME.exec(v);
  if (dt) {
    const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(dt[i] ?? 0)) as [number, number, number, number, number, number];
    if (validDate(year, month, day) && hour < 24 && minute < 60 && second < 60) return instantOf({ year, month, day, hour, minute, second }, zone);
  }
  throw new UsageError(`${flag} takes a date (2026-11-30 or 20261130), a date-time (2026-11-30T09:00, or with an offset) or a span back from now (7d, 12h, 2w), not ${JSON.stringify(value)}`);
}

function validDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** `--timezone`: a zone Intl knows, else a usage error. */
export function checkedTimeZone(zone: string): string {
  if (!isTimeZone(zone)) throw new UsageError(`--timezone takes an IANA time zone name (Europe/Berlin, America/New_York, UTC), not ${JSON.stringify(zone)}`);
  return zone;
}

/** What the time flags set, checked: a zone Intl knows, bounds that parse and come in order. */
export function timeOptions(raw: OptionValues, nowMs: number = Date.now()): TimeOptions {
  const given = text(raw, 'timezone');
  const timezone = given !== undefined ? checkedTimeZone(given) : userTimeZone();
  const since = text(raw, 'since');
  const until = text(raw, 'until');
  const window: SessionWindow = {};
  if (since !== undefined) window.sinceMs = parseMoment('--since', since, timezone, nowMs, 'since');
  if (until !== undefined) window.untilMs = parseMoment('--until', until, timezone, nowMs, 'until');
  if (window.sinceMs !== undefined && window.untilMs !== undefined && window.sinceMs > window.untilMs) {
    throw new UsageError(`--since ${since} is after --until ${until}: no session can be in between`);
  }
  const by: PeriodUnit | undefined = choice(raw, 'by', PERIOD_UNITS);
  return {
    timezone,
    ...(since !== undefined || until !== undefined ? { window } : {}),
    ...(by !== undefined ? { periods: { by, timezone } } : {}),
  };
}
