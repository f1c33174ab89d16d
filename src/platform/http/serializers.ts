import { type BuildSerializer, fastifyDefaultSerializers } from './serialization.js';

/**
 * Response serialisers: Fastify's own compiler (fast-json-stringify), given a copy of each response
 * schema in which two unions are said the way it serialises without a validator. Our `Nullable(T)`
 * is `anyOf: [T, { type: 'null' }]`, and a union of string literals (a status) is `anyOf` of
 * `const`s: for every `anyOf` the generated code runs an Ajv validation of each option in turn until
 * one matches, per field and per row (four of them per product, four per order). The copy says
 * `T` with `nullable: true` (null, else T's serialiser) and `{ type: 'string', enum }` (the string
 * as it is). For any value the route's schema admits, the bytes are the same; a value it does not
 * admit (a number in a nullable string) is serialised instead of failing the response. The route
 * schemas themselves, and so the OpenAPI document built from them, are untouched.
 */

type Schema = Record<string, unknown>;

/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);
/** Keywords that make fast-json-stringify ignore `nullable` or `type` beside them. */
const COMBINATORS = ['anyOf', 'oneOf', 'allOf', '$ref', 'if', 'const', 'nullable'];

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isNullType = (s: unknown) => isSchema(s) && s.type === 'null' && Object.keys(s).length === 1;

/** A schema of one plain type (no union, reference or constant): `nullable` applies to it as is. */
const isPlainTyped = (s: Schema) =>
  typeof s.type === 'string' && s.type !== 'null' && COMBINATORS.every((k) => s[k] === undefined);

const isStringConstant = (s: unknown) =>
  isSchema(s) &&
  typeof s.const === 'string' &&
  Object.keys(s).every((k) => k === 'const' || (k === 'type' && s.type === 'string'));

/** The schema as the serialiser is given it (a deep copy; the input is never changed). */
export function serializerSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializerSchemaOf);
  if (!isSchema(schema)) return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] = DATA_KEYWORDS.has(key) ? value : serializerSchemaOf(value);
  }
  const options = copy.anyOf;
  if (!Array.isArray(options)) return copy;
  const { anyOf: _, ...siblings } = copy;
  if (options.length === 2 && isNullType(options[1]) && isSchema(options[0]) && isPlainTyped(options[0]))
    return { ...siblings, ...options[0], nullable: true };
  if (options.length > 0 && options.every(isStringConstant))
    return { ...siblings, type: 'string', enum: options.map((o) => (o as Schema).const) };
  return copy;
}

/**
 * For Fastify's `schemaController.compilersFactory.buildSerializer`: the compiler Fastify would use
 * (or `base`), fed the rewritten schemas.
 */
export function unionFreeSerializers(base: BuildSerializer = fastifyDefaultSerializers()): BuildSerializer {
  return (externalSchemas, options) => {
    const compile = base(externalSchemas, options);
    return (route) => compile({ ...route, schema: serializerSchemaOf(route.schema) });
  };
}
