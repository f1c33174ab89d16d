/** The two e-mails of a sign-up request: the code, or (for a registered address) a sign-in pointer. */

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

export function signupCodeMail(code: string, storeName: string, minutes: number) {
  const text = `Your Emporium sign-up code is ${code}.\n\nEnter it to create the store "${storeName}". It is valid for ${minutes} minutes. If you did not sign up, ignore this e-mail: nothing is created without the code.\n`;
  const html = `<!doctype html><html><body style="font-family:sans-serif;color:#111"><p>Your sign-up code for <strong>${escapeHtml(storeName)}</strong> is</p><p style="font-size:28px;letter-spacing:6px;font-weight:bold">${code}</p><p>It is valid for ${minutes} minutes. If you did not sign up, ignore this e-mail.</p></body></html>`;
  return { subject: `${code} is your Emporium sign-up code`, text, html };
}

export function alreadyRegisteredMail(signInUrl: string) {
  const text = `Someone (perhaps you) tried to sign up with this e-mail address, but you already have an account.\n\nSign in at ${signInUrl} (you can reset a forgotten password with the platform's operator). If it was not you, ignore this e-mail.\n`;
  const html = `<!doctype html><html><body style="font-family:sans-serif;color:#111"><p>Someone (perhaps you) tried to sign up with this e-mail address, but you already have an account.</p><p><a href="${escapeHtml(signInUrl)}">Sign in</a> instead. If it was not you, ignore this e-mail.</p></body></html>`;
  return { subject: 'You already have an Emporium account', text, html };
}
