import { UpstreamFailure, type ChatCompletionRequest, type ChatCompletionResult, type ChatUpstream, type TokenUsage } from '../ports.js';
import { postJson } from './openai-http.js';

export interface OpenAiChatOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

const MAX_CHAT_RESPONSE_BYTES = 8 * 1024 * 1024;

function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

function usageOf(u: unknown): TokenUsage | null {
  if (typeof u !== 'object' || u === null) return null;
  const o = u as Record<string, unknown>;
  const p = count(o['prompt_tokens']);
  const c = count(o['completion_tokens']);
  if (p === undefined || c === undefined) return null;
  return { promptTokens: p, completionTokens: c, totalTokens: count(o['total_tokens']) ?? p + c };
}

/** `POST {base}/chat/completions` of an OpenAI-compatible API (OpenAI, Azure-compatible gateways, vLLM, Ollama, LiteLLM). */
export class OpenAiChatUpstream implements ChatUpstream {
  constructor(private readonly opts: OpenAiChatOptions) {}

  async complete(req: ChatCompletionRequest): Promise<ChatCompletionResult> {
    const payload: Record<string, unknown> = { model: req.model, messages: req.messages, stream: false };
    if (req.maxTokens !== undefined) payload['max_tokens'] = req.maxTokens;
    if (req.temperature !== undefined) payload['temperature'] = req.temperature;
    const ans = await postJson(`${this.opts.baseUrl}/chat/completions`, payload, {
      apiKey: this.opts.apiKey,
      timeoutMs: this.opts.timeoutMs,
      maxResponseBytes: MAX_CHAT_RESPONSE_BYTES,
      ...(this.opts.fetch === undefined ? {} : { fetch: this.opts.fetch }),
    });
    let j: Record<string, unknown>;
    try {
      j = JSON.parse(new TextDecoder().decode(ans.body)) as Record<string, unknown>;
    } catch {
      throw new UpstreamFailure('malformed', 'the answer is not JSON', { status: ans.status });
    }
    const choices = j['choices'];
    const first = Array.isArray(choices) ? (choices[0] as Record<string, unknown> | undefined) : undefined;
    const message = first?.['message'] as Record<string, unknown> | undefined;
    const content = message?.['content'];
    if (typeof content !== 'string') throw new UpstreamFailure('malformed', 'the answer has no choices[0].message.content', { status: ans.status });
    const finish = first?.['finish_reason'];
    return {
      content,
      finishReason: typeof finish === 'string' ? finish : null,
      model: typeof j['model'] === 'string' ? j['model'] : req.model,
      usage: usageOf(j['usage']),
      upstreamId: typeof j['id'] === 'string' ? j['id'] : null,
    };
  }
}
