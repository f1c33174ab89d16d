import { cartScenario } from '../lib/carts-bench.js';

/** POST …/carts/{id}/complete: the real app vs bare Fastify + pg (bench/lib/carts-bench.ts). */
export const scenario = cartScenario('complete');
