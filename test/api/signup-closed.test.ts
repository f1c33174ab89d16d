import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let closed: TestApp;
beforeAll(async () => {
  closed = await buildTestApp({ config: { signup: 'closed' } });
});
afterAll(() => closed.close());

const signupBody = () => ({
  email: 'closed@example.com',
  password: 'correct horse battery',
  store_name: 'Shop',
});

describe('SIGNUP=closed', () => {
  it('refuses both steps with 403 and says so', async () => {
    const status = await closed.server.inject({ method: 'GET', url: '/api/admin/signup' });
    expect(status.json()).toEqual({ data: { open: false } });
    const res = await closed.server.inject({
      method: 'POST',
      url: '/api/admin/signup',
      payload: signupBody(),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/closed/) });
    const verify = await closed.server.inject({
      method: 'POST',
      url: '/api/admin/signup/verify',
      payload: { email: 'a@example.com', code: '123456' },
    });
    expect(verify.statusCode).toBe(403);
  });
});
