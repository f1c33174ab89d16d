import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateSdkSchema, SDK_SCHEMA_FILE } from '../../packages/sdk/scripts/generate.js';

/**
 * packages/sdk/src/schema.ts is generated from the route schemas; a route schema changed without
 * regenerating it ships an SDK typed against an API that no longer exists (or missing a new one).
 */
describe('the SDK', () => {
  it('is what the server OpenAPI document generates today', { timeout: 60_000 }, async () => {
    const generated = await generateSdkSchema();
    const committed = fs.readFileSync(SDK_SCHEMA_FILE, 'utf8');
    if (generated !== committed) {
      const generatedLines = generated.split('\n');
      const committedLines = committed.split('\n');
      const line = generatedLines.findIndex((text, i) => text !== committedLines[i]);
      expect.fail(
        [
          'packages/sdk/src/schema.ts differs from what the OpenAPI document generates: run npm run gen:sdk',
          `first difference at line ${line + 1}:`,
          `  committed: ${committedLines[line] ?? '(end of file)'}`,
          `  generated: ${generatedLines[line] ?? '(end of file)'}`,
        ].join('\n'),
      );
    }
    expect(generated).toContain("'/api/v1/orders/{id}/edit-items'");
    expect(generated).toContain("'/api/storefront/{slug}/checkout'");
    expect(generated).not.toContain("'/api/admin/");
    expect(generated).toContain("'POST /api/v1/orders'");
  });
});
