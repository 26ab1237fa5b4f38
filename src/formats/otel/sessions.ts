// Groups a file's spans and log records into sessions (by `gen_ai.conversation.id`, `session.id` or
// `conversation.id`, else by trace), drops records exported twice, and holds each session until the
// file ends, because spans arrive in any order. What is held is bounded: past HELD_BUDGET the
// session least recently added to is read and released early; a record for it arriving later
// starts a new piece of the same session (reported once), so memory stays bounded, not the session whole.

import type { TranscriptBuilder, SessionBuilder } from '../../model/builder.js';
import { fileStem } from '../shared/text.js';
import { deliver } from './draft.js';
import { identity, type OtelItem } from './items.js';
import type { Producer } from './producer.js';
import { producerOf } from './producers.js';
import { str } from './values.js';

/** Characters (roughly) of records held across the file's open sessions before one is released. */
const HELD_BUDGET = 8 * 1024 * 1024;

interface Group {
  key: string;
  items: OtelItem[];
  /** Index in `items` of each record by identity, so a second export replaces or is dropped. */
  seen: Map<string, number>;
  size: number;
  traces: Set<string>;
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
  /** Sessions released early, kept (without their records) in case more of them arrives. */
  private readonly parked = new Map<string, Group>();
  private held = 0;

  constructor(
    private readonly builder: TranscriptBuilder,
    private readonly path: string,
    private readonly notice: (reason: string) => void,
    private readonly ignore: (kind: string) => void,
    private readonly budget = HELD_BUDGET,
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
      group = { key, items: [], seen: new Map(), size: 0, traces: new Set(), producer: null, builder: null, released: false, reported: false };
    }
    this.groups.set(key, group);
    if (group.released && !group.reported) {
      group.reported = true;
      this.notice(`session ${key} held more than ${Math.round(this.budget / 2 ** 20)} MB of records and was read in parts: a call and its answer on either side of a part count as unanswered`);
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
    if (item.traceId !== null) group.traces.add(item.traceId);
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
    if (items.length === 0) return;
    group.producer ??= producerOf(items);
    if (!group.producer) {
      for (let i = 0; i < items.length; i++) this.ignore('otel record of no known producer');
      return;
    }
    group.builder ??= this.builder.session(group.key, {
      id: this.sessionId(group.key),
      producer: group.producer.name,
      unrecorded: group.producer.unrecorded,
    });
    deliver(group.producer.read(items), group.builder);
  }

  private sessionId(key: string): string {
    if (key === 'file') return fileStem(this.path);
    return key.startsWith('trace:') ? key.slice('trace:'.length) : key;
  }
}
