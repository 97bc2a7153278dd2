import type { FastifyInstance } from 'fastify';
import type { Task } from '../../domain/scan.js';
import { complete, LlmUnavailableError } from '../../llm/client.js';
import { ApiError } from '../errors.js';
import { tenantOf } from '../plugins/auth.js';
import { AUTHENTICATED_ERRORS, RATE_LIMIT_HEADERS, errorResponses } from '../schemas/common.js';
import { GenerateBody, Generated } from '../schemas/llm.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

const SYSTEM =
  "You are Vigil's assistant for application security and quality findings. Be precise and practical; when a finding is given, explain the risk and give concrete remediation steps.";

/** Findings are data from the target: they are quoted as context and never treated as instructions. */
function findingContext(task: Task): string {
  const fields = {
    name: task.name,
    status: task.status,
    severity: task.severity,
    owasp: task.owasp,
    cwe: task.cwe,
    endpoint: task.endpoint,
    parameter: task.parameter,
    evidence: task.evidence?.slice(0, 4000),
    error: task.error,
  };
  return `Finding (JSON, untrusted data from the scanned target):\n${JSON.stringify(fields, null, 2)}`;
}

export async function llmRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/llm/generate',
    {
      schema: {
        tags: ['llm'],
        summary: 'Generate text with a language model, optionally about a scan finding',
        description:
          'Sends the prompt (and, with scan_id/task_id, the finding as quoted context) to the OpenAI-compatible service set in ' +
          'VIGIL_LLM_URL. Target credentials are never sent. 503 LLM_NOT_CONFIGURED when no service is configured; 502 ' +
          'LLM_UNAVAILABLE when it fails or times out.',
        body: GenerateBody,
        response: {
          200: { ...Generated, headers: RATE_LIMIT_HEADERS },
          ...errorResponses({
            ...AUTHENTICATED_ERRORS,
            404: 'scan_id or task_id not found for this tenant',
            422: 'Invalid body (task_id needs scan_id)',
            502: 'The language model service failed (LLM_UNAVAILABLE)',
            503: 'No language model service configured (LLM_NOT_CONFIGURED)',
          }),
        },
      },
    },
    async (request) => {
      const { url, model, apiKey, timeoutSeconds } = services.config.llm;
      if (!url) throw new ApiError(503, 'LLM_NOT_CONFIGURED', 'No language model service is configured on this server (VIGIL_LLM_URL)');
      const body = request.body;
      if (body.task_id && !body.scan_id)
        throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed: task_id needs scan_id', {
          fields: [{ field: 'scan_id', message: 'is required with task_id' }],
        });
      const messages: Array<{ role: 'system' | 'user'; content: string }> = [{ role: 'system', content: SYSTEM }];
      if (body.scan_id) {
        const scan = await services.scans.get(tenantOf(request).id, body.scan_id);
        if (!scan) throw new ApiError(404, 'NOT_FOUND', `Scan ${body.scan_id} not found`);
        const tasks = scan.results?.tasks ?? [];
        const task = body.task_id ? tasks.find((t) => t.task_id === body.task_id) : undefined;
        if (body.task_id && !task) throw new ApiError(404, 'NOT_FOUND', `Task ${body.task_id} not found in scan ${scan.id}`);
        const summary = `Scan ${scan.id}: ${scan.mode} scan of ${scan.url}, status ${scan.status}, ${scan.failed ?? 0} failed of ${scan.total ?? 0} tasks.`;
        messages.push({ role: 'user', content: task ? `${summary}\n${findingContext(task)}` : summary });
      }
      messages.push({ role: 'user', content: body.prompt });
      try {
        return await complete({ url, model, apiKey, timeoutSeconds }, messages, { maxTokens: body.max_tokens ?? 512, temperature: body.temperature ?? 0.2 });
      } catch (error) {
        if (error instanceof LlmUnavailableError) throw new ApiError(502, 'LLM_UNAVAILABLE', `Generation failed: ${error.message}`);
        throw error;
      }
    },
  );
}
