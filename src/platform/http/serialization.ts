import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';

type Serialize = (data: unknown) => string;
/** Fastify's `schemaController.compilersFactory.buildSerializer`: shared schemas in, a compiler out. */
export type BuildSerializer = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;

/**
 * Fastify's own default, `@fastify/fast-json-stringify-compiler`, resolved from Fastify's package so
 * that it is exactly the version Fastify would use (it is Fastify's dependency, not ours).
 */
export const fastifyDefaultSerializers = (): BuildSerializer => {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const selector = fromFastify('@fastify/fast-json-stringify-compiler') as () => BuildSerializer;
  return selector();
};

const compileAll = new WeakMap<object, () => number>();

/**
 * Fastify compiles a fast-json-stringify serializer for every response schema of every route when
 * the server starts: with the validators (see validation.ts) that was the largest part of start-up.
 * This factory hands Fastify serializers that compile with `base` (Fastify's default compiler unless
 * given, e.g. unionFreeSerializers), over the same shared schemas and options, on their first
 * response instead. The output is `base`'s.
 */
export function serializersCompiledOnFirstUse(base: BuildSerializer = fastifyDefaultSerializers()): {
  buildSerializer: BuildSerializer;
  /** Compiles every serializer handed out so far (tests: every response schema must compile). */
  compileAll: () => number;
} {
  const pending = new Set<() => Serialize>();
  const buildSerializer: BuildSerializer = (externalSchemas, serializerOpts) => {
    const compiler = base(externalSchemas, serializerOpts);
    return (route) => {
      let serialize: Serialize | undefined;
      const compile = () => {
        serialize ??= compiler(route);
        pending.delete(compile);
        return serialize;
      };
      pending.add(compile);
      return (data) => (serialize ?? compile())(data);
    };
  };
  return {
    buildSerializer,
    compileAll() {
      const count = pending.size;
      for (const compile of [...pending]) compile();
      return count;
    },
  };
}

/** Records the `compileAll` of the factory an instance was created with (createHttpServer). */
export function rememberSerializers(server: FastifyInstance, all: () => number): void {
  compileAll.set(server, all);
}

/**
 * Compiles every response serializer of `server` (after `ready()`), throwing the first schema that
 * fast-json-stringify refuses, as Fastify would have at start; returns how many were compiled.
 */
export function compileEverySerializer(server: FastifyInstance): number {
  const all = compileAll.get(server);
  if (!all) throw new Error('this server was not created by createHttpServer');
  return all();
}
