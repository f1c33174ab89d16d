import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/**
 * Two validators: bodies are checked strictly (no type coercion, unknown fields rejected, so a
 * client's typo is a 400 rather than silently ignored); query strings and path parameters arrive as
 * text and are coerced to the declared types.
 */
export function installValidation(app: FastifyInstance): void {
  const common = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false } as const;
  const body = new Ajv({ ...common, coerceTypes: false });
  const query = new Ajv({ ...common, coerceTypes: 'array' });
  for (const ajv of [body, query]) {
    (addFormats as unknown as (a: Ajv) => void)(ajv);
  }
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? body : query;
    return ajv.compile(schema);
  });
}
