/** Schemas of POST /llm/generate. */
import { Type } from '@sinclair/typebox';

export const GenerateBody = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: 8000, description: 'What to generate or ask' }),
    scan_id: Type.Optional(
      Type.String({ minLength: 1, description: 'A finished scan of the tenant to give as context (an unknown one, of any length, is 404)' }),
    ),
    task_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'A task of that scan (e.g. a finding to explain and fix)' })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096, default: 512 })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2, default: 0.2 })),
  },
  {
    additionalProperties: false,
    examples: [{ prompt: 'Explain this finding and how to fix it in an Express app', scan_id: 'scn_Vq3b9xk2Lm0aP1cD', task_id: 'sqli-error:GET /items' }],
  },
);

export const Generated = Type.Object(
  {
    text: Type.String(),
    model: Type.String(),
    usage: Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer() }),
  },
  {
    examples: [
      {
        text: 'The id parameter is concatenated into SQL... Use parameterised queries: ...',
        model: 'gpt-4o-mini',
        usage: { prompt_tokens: 312, completion_tokens: 180 },
      },
    ],
  },
);
