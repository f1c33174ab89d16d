/** A one-line progress bar on stderr (so --json output on stdout stays clean). */
export function progressBar(enabled: boolean) {
  let lastDraw = 0;
  return (label: string, done: number, total: number) => {
    if (!enabled) return;
    const now = Date.now();
    if (done < total && now - lastDraw < 100) return;
    lastDraw = now;
    const width = 30;
    const ratio = total === 0 ? 1 : done / total;
    const filled = Math.round(ratio * width);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    process.stderr.write(`\r${label.padEnd(10)} ${bar} ${done}/${total} (${Math.round(ratio * 100)}%)`);
    if (done >= total) process.stderr.write('\n');
  };
}
