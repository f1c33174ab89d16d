/**
 * Runs every clean-up step even when one fails, so a failed step never leaves a server, a database
 * or a cluster behind; failures are reported, not thrown, so they cannot hide the scenario's own error.
 */
export async function cleanUp(
  log: (line: string) => void,
  steps: Array<[label: string, step: () => Promise<unknown>]>,
): Promise<void> {
  for (const [label, step] of steps) {
    try {
      await step();
    } catch (error) {
      log(`clean-up: ${label} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Clean-up steps, newest first (`onExit` as each resource is made): each released even when a later step failed. */
export function cleanUpStack() {
  const release: Array<[label: string, step: () => Promise<unknown>]> = [];
  const onExit = (label: string, step: () => Promise<unknown>) => {
    release.unshift([label, step]);
  };
  return { release, onExit };
}
