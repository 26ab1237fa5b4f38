// Cursor's chats, as cursor-db.ts reads them from the editor's `state.vscdb`: one record per chat,
// `{composer, parent, bubbles}`. A bubble of type 1 is the user's message (a turn), of type 2 the
// model's: text, or one tool call in `toolFormerData` ({name, rawArgs, result, status,
// toolCallId, modelCallId}) holding its own result. Calls sharing a `modelCallId` are one model
// response (one round); text before them belongs to the same response, text after them starts
// the next. Modelled on a store committed to a public repository (docs/formats.md "cursor").

import type { SessionBuilder } from '../model/builder.js';
import { asNumber, asString, isRec, parseJsonString, type Rec } from './shared/text.js';
import type { AdapterContext, FormatAdapter, RecordParser } from './types.js';

export const cursorAdapter: FormatAdapter = {
  name: 'cursor',
  description: "Cursor's chats: the editor's state.vscdb (SQLite cursorDiskKV: composerData, bubbleId); tool calls from toolFormerData, one round per model call",
  detection: 'a SQLite database with a cursorDiskKV table (read from the database only)',
  detect: () => 0,
  open: (ctx) => new CursorParser(ctx),
};

const USER = 1;
const MODEL = 2;

class CursorParser implements RecordParser {
  constructor(private readonly ctx: AdapterContext) {}

  push(value: unknown, line: number | null): void {
    if (!isRec(value) || !isRec(value.composer) || !Array.isArray(value.bubbles)) {
      this.ctx.skip(line, "not a Cursor chat ({composer, bubbles})");
      return;
    }
    const composer = value.composer;
    const sb = this.ctx.builder.session(String(composer.composerId), { parent: asString(value.parent) });
    const modelName = isRec(composer.modelConfig) ? asString(composer.modelConfig.modelName) : null;
    new ChatReader(sb, modelName === 'default' ? null : modelName, line).read(value.bubbles.filter(isRec));
  }

  end(): void {}
}

/** Walks one chat's bubbles, keeping which model response the pending round is. */
class ChatReader {
  /** The pending round: whether it has calls yet, the response they came from, its tokens so far. */
  private round: { calls: boolean; modelCall: string | null; input: number; output: number } | null = null;

  constructor(
    private readonly sb: SessionBuilder,
    private readonly model: string | null,
    private readonly line: number | null,
  ) {}

  read(bubbles: Rec[]): void {
    for (const bubble of bubbles) {
      if (bubble.type === USER) {
        this.round = null;
        this.sb.userTurn(this.line);
      } else if (bubble.type === MODEL) {
        this.modelBubble(bubble);
      }
    }
  }

  private modelBubble(bubble: Rec): void {
    const tool = isRec(bubble.toolFormerData) && typeof bubble.toolFormerData.name === 'string' ? bubble.toolFormerData : null;
    const modelCall = tool ? asString(tool.modelCallId) : null;
    // Text after calls is the next response; a call from another response is too.
    const sameResponse = this.round !== null && (tool ? !this.round.calls || this.round.modelCall === modelCall : !this.round.calls);
    if (!sameResponse) {
      const timing = isRec(bubble.timingInfo) ? asNumber(bubble.timingInfo.clientRpcSendTime) : null;
      this.sb.round({ line: this.line, model: this.model, timestamp: timing !== null ? new Date(timing).toISOString() : null });
      this.round = { calls: false, modelCall: null, input: 0, output: 0 };
    }
    const round = this.round!;
    const text = asString(bubble.text);
    if (text) this.sb.text(text);
    if (tool) {
      round.calls = true;
      round.modelCall = modelCall;
      const id = asString(tool.toolCallId);
      this.sb.call({ id, name: tool.name as string, arguments: parseJsonString(tool.rawArgs) });
      if (tool.result !== undefined || tool.status === 'error') this.sb.answer(id, answerOf(tool));
    }
    const tokens = isRec(bubble.tokenCount) ? bubble.tokenCount : null;
    if (tokens) {
      round.input += asNumber(tokens.inputTokens) ?? 0;
      round.output += asNumber(tokens.outputTokens) ?? 0;
      if (round.input + round.output > 0) this.sb.usage({ inputTokens: round.input, outputTokens: round.output });
    }
  }
}

/** A call's result as Cursor kept it (a JSON string, shown as text); `status: "error"` is its failure. */
function answerOf(tool: Rec) {
  const result = tool.result;
  const content = typeof result === 'string' ? result : result === undefined || result === null ? '' : JSON.stringify(result);
  return { content, isError: tool.status === 'error' };
}
