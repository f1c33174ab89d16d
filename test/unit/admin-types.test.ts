import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateAdminApiTypes, SCHEMA_FILE } from '../../admin/scripts/gen-api-types.js';

/**
 * admin/src/api/schema.ts is generated from the route schemas; a route schema changed without
 * regenerating it leaves the dashboard typed against an API that no longer exists.
 */
describe('the dashboard API types', () => {
  it('are what the route schemas generate today', { timeout: 60_000 }, async () => {
    const generated = await generateAdminApiTypes();
    const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
    if (generated !== committed) {
      const generatedLines = generated.split('\n');
      const committedLines = committed.split('\n');
      const line = generatedLines.findIndex((text, i) => text !== committedLines[i]);
      expect.fail(
        [
          'admin/src/api/schema.ts differs from what the route schemas generate: run npm run gen:admin-types',
          `first difference at line ${line + 1}:`,
          `  committed: ${committedLines[line] ?? '(end of file)'}`,
          `  generated: ${generatedLines[line] ?? '(end of file)'}`,
        ].join('\n'),
      );
    }
    expect(generated).toContain("'/api/v1/orders/{id}/edit-items'");
  });
});
