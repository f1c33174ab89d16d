/** The invitation e-mail: plain text and HTML, the link the only way in (the token is in it alone). */
export function invitationMail(input: { storeName: string; inviter: string; link: string; days: number }) {
  const { storeName, inviter, link, days } = input;
  const text = `${inviter} invites you to join the team of ${storeName} on Emporium.\n\nAccept the invitation (valid ${days} days, usable once):\n${link}\n\nIf you did not expect it, ignore this e-mail: nothing happens without the link.\n`;
  const html = `<!doctype html><html><body style="font-family:sans-serif;color:#111"><p>${escapeHtml(inviter)} invites you to join the team of <strong>${escapeHtml(storeName)}</strong> on Emporium.</p><p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 16px;background:#111827;color:#fff;text-decoration:none;border-radius:6px">Accept the invitation</a></p><p>The link is valid ${days} days and works once. If you did not expect it, ignore this e-mail.</p></body></html>`;
  return { subject: `Join the team of ${storeName}`, text, html };
}

function escapeHtml(s: string) {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}
