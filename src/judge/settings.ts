// The judge's connection, read from `judge.*`: where to ask, which model, the key (read from the
// environment variable `judge.api_key_env` names, never from the configuration, never printed).

import { redactUrls } from '../config/redact.js';
import { ConfigError } from '../errors.js';
import type { LadderConfig } from '../ladder/config.js';

export interface JudgeConnection {
  /** The full chat-completions URL. */
  url: string;
  model: string;
  /** The variable's name (printable); the key itself is `apiKey`. */
  apiKeyEnv: string | null;
  /** Never printed, never written anywhere but the request's Authorization header. */
  apiKey: string | null;
  timeoutMs: number;
  /** `judge.cache`: the verdict file, or null. */
  cache: string | null;
  concurrency: number;
  /** No request can be made this run (the key's variable is unset). */
  blocked?: 'no_api_key';
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** How environment variables are conventionally named; anything else might be a key pasted by mistake. */
const CONVENTIONAL_NAME = /^[A-Z_][A-Z0-9_]{0,63}$/;

/** The variable named in messages, unless the "name" might be the key itself. */
function shownName(name: string): string {
  return CONVENTIONAL_NAME.test(name) ? name : 'the variable judge.api_key_env names';
}

/** A name or URL as given, blanks around it dropped; a blank one is no value. */
function given(v: string | null): string | null {
  return v !== null && v.trim() !== '' ? v.trim() : null;
}

/** The `judge.*` settings the connection needs (the ladder's section declares them). */
export type JudgeConnectionSettings = Pick<
  LadderConfig,
  'judgeEnabled' | 'judgeEndpoint' | 'judgeModel' | 'judgeApiKeyEnv' | 'judgeTimeoutS' | 'judgeCache' | 'judgeConcurrency'
>;

/**
 * `judge.endpoint` as a chat-completions URL: a base URL (`https://api.openai.com/v1`,
 * `http://localhost:11434/v1`) gets `/chat/completions`; a URL already ending so is kept.
 */
export function chatCompletionsUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ConfigError(`judge.endpoint ${JSON.stringify(redactUrls(endpoint))}: expected an http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`judge.endpoint ${JSON.stringify(redactUrls(endpoint))}: expected an http:// or https:// URL`);
  }
  if (url.username !== '' || url.password !== '') {
    // The configuration is echoed in every JSON ledger: a key in the URL would be printed.
    throw new ConfigError(
      'judge.endpoint carries credentials in the URL; put the key in an environment variable and name it in judge.api_key_env',
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/chat/completions') ? path : `${path}/chat/completions`;
  return url.toString();
}

/** The connection, or null when no judge is to be asked (disabled, or no endpoint). */
export function readJudgeConnection(
  settings: JudgeConnectionSettings,
  env: NodeJS.ProcessEnv,
  warn: (m: string) => void = () => {},
): JudgeConnection | null {
  if (!settings.judgeEnabled) return null;
  const endpoint = given(settings.judgeEndpoint);
  const model = given(settings.judgeModel);
  if (endpoint === null) {
    if (model !== null) warn('judge.model is set but judge.endpoint is not: no judge is asked');
    return null;
  }
  if (model === null) throw new ConfigError('judge.endpoint is set but judge.model is not: name the model the endpoint should use');
  const url = chatCompletionsUrl(endpoint);
  const apiKeyEnv = given(settings.judgeApiKeyEnv);
  let apiKey: string | null = null;
  let blocked: JudgeConnection['blocked'];
  if (apiKeyEnv !== null) {
    if (!ENV_NAME.test(apiKeyEnv)) {
      // Not echoed: what was given may be the key itself.
      throw new ConfigError('judge.api_key_env: expected the NAME of an environment variable (letters, digits, _), not the key itself');
    }
    const key = env[apiKeyEnv];
    if (key === undefined || key.trim() === '') {
      warn(`judge.api_key_env: ${shownName(apiKeyEnv)} is not set; no judge is asked, the heuristic verdicts stand`);
      blocked = 'no_api_key';
    } else {
      apiKey = key.trim();
    }
  }
  const connection: JudgeConnection = {
    url,
    model,
    apiKeyEnv,
    apiKey,
    timeoutMs: Math.round(settings.judgeTimeoutS * 1000),
    cache: given(settings.judgeCache),
    concurrency: settings.judgeConcurrency,
  };
  if (blocked) connection.blocked = blocked;
  return connection;
}
