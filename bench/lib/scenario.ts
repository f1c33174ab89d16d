/** What every file in bench/scenarios/ exports as `scenario`, and what its run returns. */

export interface Target {
  /** Whether the target applies to the figure itself or to the ratio ours/baseline. */
  on: 'value' | 'ratio';
  op: '>=' | '<' | '<=';
  value: number;
}

export interface Metric {
  name: string;
  unit: string;
  ours: number;
  baseline?: number;
  /**
   * Which way is better for this figure. When unset, the report infers it from the unit
   * (bench/lib/direction.ts); set it for a unit that can point either way, such as %.
   */
  better?: 'higher' | 'lower';
  /** What the baseline is, e.g. "bare Fastify + pg". */
  baselineLabel?: string;
  /** ours / baseline, when there is a baseline. */
  ratio?: number;
  target?: Target;
  /** Whether the target is met (undefined when there is no target). */
  met?: boolean;
}

export interface ScenarioResult {
  name: string;
  description: string;
  metrics: Metric[];
  /** Conditions of the run a reader needs to interpret the figures (database, machine, SQL source…). */
  notes: string[];
  durationMs: number;
}

export interface Scenario {
  name: string;
  description: string;
  run(log: (line: string) => void): Promise<Omit<ScenarioResult, 'name' | 'description' | 'durationMs'>>;
}

/** A metric with its ratio and target verdict filled in. */
export function metric(input: Omit<Metric, 'ratio' | 'met'>): Metric {
  const ratio =
    input.baseline !== undefined && input.baseline !== 0 ? input.ours / input.baseline : undefined;
  let met: boolean | undefined;
  if (input.target) {
    const subject = input.target.on === 'ratio' ? ratio : input.ours;
    met =
      subject === undefined
        ? false
        : input.target.op === '>='
          ? subject >= input.target.value
          : input.target.op === '<='
            ? subject <= input.target.value
            : subject < input.target.value;
  }
  return { ...input, ratio, met };
}
