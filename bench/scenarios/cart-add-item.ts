import { cartScenario } from '../lib/carts-bench.js';

/** POST …/carts/{id}/items: the real app vs bare Fastify + pg (bench/lib/carts-bench.ts). */
export const scenario = cartScenario('add-item');
