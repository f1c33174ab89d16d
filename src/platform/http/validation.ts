import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { COUNTRY_CODE_FORMAT, isCountryInput } from './country-input.js';
import { installInputGuard } from './input-guard.js';

/**
 * Two validators: bodies are checked strictly (no type coercion, unknown fields rejected, so a
 * client's typo is a 400 rather than silently ignored); query strings and path parameters arrive as
 * text and are coerced to the declared types. Before either runs, the input guard refuses NUL
 * characters and over-deep bodies on every route. Every invalid field is reported (a client fixes
 * its request in one round trip); the error body lists the first MAX_VALIDATION_DETAILS of them, and
 * the work stays linear in the body, which the body limit bounds (a 1 MiB body of unknown fields
 * is refused in milliseconds: test/api/api-description.test.ts), one sentence per field
 * (validation-messages.ts).
 */
export function installValidation(app: FastifyInstance): void {
  const common = {
    allErrors: true,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    // NaN and ±Infinity are never numbers (a JSON body's 1e400 parses to Infinity).
    strictNumbers: true,
    // Each error carries the schema it failed, where validation-messages.ts reads a schema's hint.
    verbose: true,
  } as const;
  const body = new Ajv({ ...common, coerceTypes: false });
  const query = new Ajv({ ...common, coerceTypes: 'array' });
  for (const ajv of [body, query]) {
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    ajv.addFormat(COUNTRY_CODE_FORMAT, { type: 'string', validate: isCountryInput });
  }
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validate = compiledOnFirstUse(() =>
      httpPart === 'body' ? body.compile(schema) : finiteNumbersOnly(query.compile(schema)),
    );
    return httpPart === 'body' && isOptional(schema) ? absentAllowed(validate) : validate;
  });
  // The document says which bodies may be left out (openapi-conventions.ts reads the mark).
  app.addHook('onRoute', (route) => {
    if (route.schema?.body && isOptional(route.schema.body)) {
      route.schema = { ...route.schema, 'x-optional-body': true } as typeof route.schema;
    }
  });
  installInputGuard(app);
}

/**
 * A body schema written `Type.Optional(...)`: the action takes no body at all as it takes `{}`
 * (`curl -X POST`, a generated client calling with no argument). TypeBox marks it `~optional`; JSON
 * Schema has no such notion, so Ajv alone would refuse the missing body ("body must be object").
 * Fastify hands a missing body over as null, so a JSON `null` body counts as none too.
 */
function isOptional(schema: unknown): boolean {
  return (schema as { '~optional'?: unknown } | null)?.['~optional'] === true;
}

function absentAllowed(validate: ValidateFunction): ValidateFunction {
  const wrapped = ((data: unknown) => {
    if (data === undefined || data === null) {
      wrapped.errors = null;
      return true;
    }
    const valid = validate(data);
    wrapped.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return wrapped;
}

/**
 * Compiling every route's schemas when the server starts was the largest part of its start-up (Ajv
 * generating and V8 compiling a function per route part, most of them for routes a given install
 * never serves) and of its idle heap: each is compiled by the first request that needs it instead.
 * The schemas are the routes' own, compiled by every test of their route.
 */
function compiledOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | undefined;
  const wrapped = ((data: unknown) => {
    validate ??= compile();
    const valid = validate(data);
    wrapped.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return wrapped;
}

/**
 * Ajv's coercion turns the text `Infinity` into a number and then skips `minimum`/`maximum` for it
 * (they only apply to finite numbers): `?page=Infinity` would pass. A query or path value coerced
 * to a number that is not finite is refused here, as a type error of that field.
 */
function finiteNumbersOnly(validate: ValidateFunction): ValidateFunction {
  const wrapped = ((data: unknown) => {
    if (!validate(data)) {
      wrapped.errors = validate.errors;
      return false;
    }
    const field = nonFiniteField(data);
    wrapped.errors = field === undefined ? null : [notFinite(field)];
    return field === undefined;
  }) as ValidateFunction;
  return wrapped;
}

function nonFiniteField(data: unknown): string | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  for (const [name, value] of Object.entries(data)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    const at = values.findIndex((v) => typeof v === 'number' && !Number.isFinite(v));
    if (at >= 0) return Array.isArray(value) ? `${name}/${at}` : name;
  }
  return undefined;
}

const notFinite = (field: string): ErrorObject => ({
  instancePath: `/${field}`,
  schemaPath: '#/type',
  keyword: 'type',
  params: { type: 'finite number' },
  message: 'must be a finite number',
});
