import pino from 'pino';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { loadConfig } from '../../config.js';
import { openDatabase } from '../db/database.js';
import { MemoryRateLimitStore } from './rate-limit.js';
import { compileEverySerializer } from './serialization.js';
import { createHttpServer } from './server.js';

const silent = pino({ level: 'silent' });

describe('response serializers compiled on first use', () => {
  it('serialize with the route schema (fast-json-stringify), shared schemas included', async () => {
    const server = createHttpServer(silent);
    server.addSchema(Type.Object({ name: Type.String() }, { $id: 'Named' }));
    server.get(
      '/thing',
      { schema: { response: { 200: Type.Object({ id: Type.Integer(), owner: Type.Ref('Named') }) } } },
      async () => ({ id: 7, secret: 'never sent', owner: { name: 'Ada', extra: 1 } }),
    );
    await server.ready();
    for (let i = 0; i < 2; i++) {
      const response = await server.inject({ method: 'GET', url: '/thing' });
      expect(response.statusCode).toBe(200);
      // Only the schema's fields: fields outside it are dropped, as by Fastify's default.
      expect(response.body).toBe('{"id":7,"owner":{"name":"Ada"}}');
    }
    await server.close();
  });

  it('refuse a response schema fast-json-stringify cannot compile when compiled', async () => {
    const server = createHttpServer(silent);
    server.get(
      '/broken',
      {
        schema: {
          response: { 200: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } } },
        },
      },
      async () => ({ a: 1 }),
    );
    await server.ready();
    expect(() => compileEverySerializer(server)).toThrow(/missing/);
    await server.close();
  });

  it("compile for every route of the app (Fastify's check at start, now done here)", async () => {
    const database = openDatabase('postgres://serializers@127.0.0.1:1/serializers');
    const app = await buildApp({
      config: loadConfig({}),
      db: database.db,
      logger: silent,
      rateLimitStore: new MemoryRateLimitStore(),
      watchCustomDomains: false,
    });
    try {
      await app.server.ready();
      expect(compileEverySerializer(app.server)).toBeGreaterThan(100);
    } finally {
      await app.server.close();
      await database.close();
    }
  }, 60_000);
});
