/**
 * Ports of the media domain. Adapters (src/media/adapters) implement them with
 * fetch and child processes; the domain and its tests only see these shapes.
 */

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
}

export interface ChatCompletionRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly maxTokens?: number;
  readonly temperature?: number;
}

export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}

export interface ChatCompletionResult {
  readonly content: string;
  readonly finishReason: string | null;
  /** The model the upstream says it used (may differ from the requested alias). */
  readonly model: string;
  /** Null when the upstream did not report usage. */
  readonly usage: TokenUsage | null;
  readonly upstreamId: string | null;
}

/** An OpenAI-compatible chat-completions endpoint. Failures are thrown as `UpstreamFailure`. */
export interface ChatUpstream {
  complete(req: ChatCompletionRequest): Promise<ChatCompletionResult>;
}

export interface Voice {
  /** What the client sends as `voice`. */
  readonly id: string;
  readonly name: string;
  readonly language: string | null;
  readonly gender: string | null;
}

export interface SpeechRequest {
  readonly text: string;
  readonly voice: string;
  /** Multiplier of the engine's normal rate, 0.5–2. */
  readonly speed: number;
}

/** A speech engine that returns WAV bytes. Failures are thrown as `UpstreamFailure`. */
export interface SpeechEngine {
  readonly name: 'espeak' | 'openai';
  readonly defaultVoice: string;
  voices(): Promise<readonly Voice[]>;
  synthesize(req: SpeechRequest): Promise<Uint8Array>;
}

/** Whether the local engine can run, found once by the adapter. */
export interface EngineProbe {
  readonly available: boolean;
  readonly version: string | null;
  /** Why it is unavailable (e.g. "espeak-ng not found on PATH"). */
  readonly detail: string | null;
}

export type UpstreamFailureKind =
  | 'timeout'
  | 'unreachable'
  /** The upstream answered with a non-2xx status. */
  | 'http'
  /** The upstream answered 2xx with something that is not the expected shape. */
  | 'malformed'
  /** The local engine exited badly, crashed or produced nothing. */
  | 'engine'
  /** The answer was larger than allowed. */
  | 'too_large';

/**
 * What adapters throw; the media service maps it to an `AppError` with a stable code.
 * `upstreamMessage` may contain deployment details and is only shown for content rejections.
 */
export class UpstreamFailure extends Error {
  constructor(
    readonly kind: UpstreamFailureKind,
    message: string,
    readonly extra: {
      readonly status?: number;
      readonly upstreamCode?: string;
      readonly upstreamType?: string;
      readonly upstreamMessage?: string;
      readonly retryAfterSeconds?: number;
    } = {},
  ) {
    super(message);
    this.name = 'UpstreamFailure';
  }
}
