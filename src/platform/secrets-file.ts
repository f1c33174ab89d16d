import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Secrets generated once for an embedded installation and kept in DATA_DIR/secrets.json (mode 0600):
 * the embedded cluster's password and the APP_SECRET used when none is configured.
 */
export interface LocalSecrets {
  postgresPassword: string;
  appSecret: string;
}

export function loadOrCreateLocalSecrets(dataDir: string): LocalSecrets {
  const file = path.join(dataDir, 'secrets.json');
  fs.mkdirSync(dataDir, { recursive: true });
  let existing: Partial<LocalSecrets> = {};
  if (fs.existsSync(file)) existing = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LocalSecrets>;
  const secrets: LocalSecrets = {
    postgresPassword: existing.postgresPassword ?? randomBytes(24).toString('base64url'),
    appSecret: existing.appSecret ?? randomBytes(32).toString('base64url'),
  };
  if (secrets.postgresPassword !== existing.postgresPassword || secrets.appSecret !== existing.appSecret) {
    // Written to a temporary name first so a crash never leaves a half-written file.
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(secrets, null, 2), { mode: 0o600 });
    fs.renameSync(tmp, file);
  }
  return secrets;
}

/**
 * The APP_SECRET in force: the configured one, else the one generated into DATA_DIR (fine for one
 * machine; several processes on other machines must share a configured APP_SECRET).
 */
export function appSecretOf(config: { appSecret?: string; dataDir: string }): string {
  if (!config.appSecret) config.appSecret = loadOrCreateLocalSecrets(config.dataDir).appSecret;
  return config.appSecret;
}
