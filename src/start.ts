import { ConfigError, loadConfig } from './config.js';
import { EmbeddedClusterError } from './platform/db/embedded.js';
import { createLogger } from './platform/log.js';
import { StartError, serve } from './server.js';

/** `npm start` (through main.ts): load config → open database → build app → listen. */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, config.logFormat);
  await serve(config, logger, { worker: true });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof EmbeddedClusterError || error instanceof StartError) {
    process.stderr.write(`emporium: ${error.message}\n`);
  } else {
    process.stderr.write(
      `emporium: could not start: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
  }
  process.exit(1);
});
