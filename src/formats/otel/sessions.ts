// Groups a file's spans and log records into sessions (by `gen_ai.conversation.id`, `session.id` or
// `conversation.id`, else by trace), drops records exported twice, and holds each session until the
// file ends, because spans arrive in any order. What is held is bounded: past HELD_BUDGET the
// session least recently added to is read and released early; a record for it arriving later
// starts a new piece of the same session (reported once), so memory stays bounded, not the session whole.
// A session released early stays open in the ledger (its detectors live) for such a record; past
// OPEN_PARKED of them the one released longest ago is ended, and a record of it after that starts a
// session of its own (`id#2`), so the ledger's open sessions are bounded too.

import type { TranscriptBuilder, SessionBuilder } from '../../model/builder.js';
import { fileStem } from '../shared/text.js';
import { deliver } from './draft.js';
import { identity, type OtelItem } from './items.js';
import type { Producer } from './producer.js';
import { producerOf } from './producers.js';
import { str } from './values.js';

/**
 * What a file's open sessions may hold, in characters of record text (OtelItem.size: the string
 * values of its attributes and body plus a fixed part per record and event).
 * Past it, the session least recently added to is read and its records released; a record of it
 * arriving later starts a further part of the same session, and the file's inputs[].skipped says
 * so once per session (docs/formats.md, "Bounded memory"; test/robustness/otel-held-bound.cli.test.ts).
 */
const HELD_BUDGET = 8 * 1024 * 1024;

/**
 * Sessions released early and still open in the ledger: each keeps its detectors (tens of KB), so
 * without this bound a 1 GB file of thousands of sessions held them all to the end (932 MB peak RSS).
 */
const OPEN_PARKED = 64;

interface Group {
  key: string;
  /** The transcript builder's key: `key`, or `key#2`… for records arriving after the session was ended. */
  part: string;
  items: OtelItem[];
  /** Index in `items` of each record by identity, so a second export replaces or is dropped. */
  seen: Map<string, number>;
  size: number;
  producer: Producer | null;
  builder: SessionBuilder | null;
  /** Released early at least once; a later record is reported, once. */
  released: boolean;
  reported: boolean;
}

function sessionKey(item: OtelItem): string | null {
  const a = item.attrs;
  return str(a['gen_ai.conversation.id']) ?? str(a['session.id']) ?? str(a['conversation.id']) ?? str(item.resource['session.id']);
}

export class SessionGroups {
  private readonly groups = new Map<string, Group>();
  /** Which session a trace belongs to, once any of its records named one. */
  private readonly traceSession = new Map<string, string>();
  /** Sessions released early, kept open (without their records) in case more of them arrives; the longest parked first. */
  private readonly parked = new Map<string, Group>();
  private held = 0;

  constructor(
    private readonly builder: TranscriptBuilder,
    private readonly path: string,
    private readonly notice: (reason: string) => void,
    private readonly ignore: (kind: string) => void,
    private readonly budget = HELD_BUDGET,
    private readonly openParked = OPEN_PARKED,
  ) {}

  add(item: OtelItem): void {
    const session = sessionKey(item);
    if (session !== null && item.traceId !== null && !this.traceSession.has(item.traceId)) this.traceSession.set(item.traceId, session);
    const key = session ?? (item.traceId !== null ? (this.traceSession.get(item.traceId) ?? `trace:${item.traceId}`) : 'file');
    let group = this.groups.get(key) ?? this.parked.get(key);
    if (group) {
      // Most recently added last: the first in the map is the one to release.
      this.groups.delete(key);
      this.parked.delete(key);
    } else {
      const part = this.partKey(key);
      group = { key, part, items: [], seen: new Map(), size: 0, producer: null, builder: null, released: false, reported: false };
      if (part !== key) {
        this.notice(`session ${key} was read early and ended (past ${this.mb()} MB of records held, and ${this.openParked} sessions read early kept open): its records from line ${item.line ?? '?'} on are read as session ${this.sessionId(key)}${part.slice(key.length)}`);
      }
    }
    this.groups.set(key, group);
    if (group.released && !group.reported) {
      group.reported = true;
      this.notice(`session ${key} was read in parts (the file's open sessions held more than ${this.mb()} MB of records): a call and its answer on either side of a part count as unanswered`);
    }
    const id = identity(item);
    const at = group.seen.get(id);
    if (at !== undefined) {
      // Exported twice: a finished copy replaces a start copy (end unset); any other copy is dropped.
      const kept = group.items[at]!;
      if (Number.isNaN(kept.end) && !Number.isNaN(item.end)) group.items[at] = item;
      return;
    }
    group.seen.set(id, group.items.length);
    group.items.push(item);
    group.size += item.size;
    this.held += item.size;
    while (this.held > this.budget && this.groups.size > 0) this.release(this.groups.values().next().value!, true);
  }

  /** The file is done: traces that never named a session join the session that shares one of them, then every session is read. */
  end(): void {
    for (const group of this.groups.values()) {
      if (!group.key.startsWith('trace:')) continue;
      const owner = this.traceSession.get(group.key.slice('trace:'.length));
      const into = owner !== undefined ? this.groups.get(owner) : undefined;
      if (into && into !== group) {
        into.items.push(...group.items);
        this.groups.delete(group.key);
      }
    }
    for (const group of this.groups.values()) this.release(group, false);
  }

  private release(group: Group, early: boolean): void {
    this.held -= group.size;
    const items = group.items;
    group.items = [];
    group.seen = new Map();
    group.size = 0;
    if (early) {
      // Set aside with its session builder: it comes back only if a record for it arrives again.
      group.released = true;
      this.groups.delete(group.key);
      this.parked.set(group.key, group);
    }
    this.readOut(group, items);
    // Ended for good: a record of it after this starts a session of its own.
    while (this.parked.size > this.openParked) {
      const oldest = this.parked.values().next().value!;
      this.parked.delete(oldest.key);
      oldest.builder?.end();
    }
  }

  private readOut(group: Group, items: OtelItem[]): void {
    if (items.length === 0) return;
    group.producer ??= producerOf(items);
    if (!group.producer) {
      for (let i = 0; i < items.length; i++) this.ignore('otel record of no known producer');
      return;
    }
    group.builder ??= this.builder.session(group.part, {
      id: this.sessionId(group.key),
      producer: group.producer.name,
      unrecorded: group.producer.unrecorded,
    });
    deliver(group.producer.read(items), group.builder);
  }

  private mb(): number {
    return Math.round(this.budget / 2 ** 20);
  }

  /** `key`, or the first `key#N` not yet used when a session of that key was read and ended before. */
  private partKey(key: string): string {
    if (!this.builder.has(key)) return key;
    let n = 2;
    while (this.builder.has(`${key}#${n}`)) n += 1;
    return `${key}#${n}`;
  }

  private sessionId(key: string): string {
    if (key === 'file') return fileStem(this.path);
    return key.startsWith('trace:') ? key.slice('trace:'.length) : key;
  }
}
