/** A client for an OpenAI-compatible chat-completions service (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp...). */

export interface LlmSettings {
  url: string;
  model: string;
  apiKey?: string;
  timeoutSeconds: number;
}

export interface Completion {
  text: string;
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number };
}

export class LlmUnavailableError extends Error {}

export async function complete(
  settings: LlmSettings,
  messages: Array<{ role: 'system' | 'user'; content: string }>,
  options: { maxTokens: number; temperature: number },
): Promise<Completion> {
  let res: Response;
  try {
    res = await fetch(`${settings.url.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify({ model: settings.model, messages, max_tokens: options.maxTokens, temperature: options.temperature }),
      signal: AbortSignal.timeout(settings.timeoutSeconds * 1000),
    });
  } catch (error) {
    throw new LlmUnavailableError(`the language model service did not answer (${(error as Error).name === 'TimeoutError' ? 'timeout' : 'connection failed'})`);
  }
  if (!res.ok) throw new LlmUnavailableError(`the language model service answered ${res.status}`);
  const body = (await res.json().catch(() => undefined)) as
    | { model?: string; choices?: Array<{ message?: { content?: string } }>; usage?: { prompt_tokens?: number; completion_tokens?: number } }
    | undefined;
  const text = body?.choices?.[0]?.message?.content;
  if (typeof text !== 'string') throw new LlmUnavailableError('the language model service gave no completion');
  return {
    text,
    model: body?.model ?? settings.model,
    usage: { prompt_tokens: body?.usage?.prompt_tokens ?? 0, completion_tokens: body?.usage?.completion_tokens ?? 0 },
  };
}
