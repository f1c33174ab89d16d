// The cart without page reloads: its forms (quantity, remove, coupon) are sent in the background and
// the cart drawn again from the server's answer, keyboard focus staying where it was; a changed
// quantity is sent by itself after a short pause. Without this script the same forms post and
// reload the page (post/redirect/get).

const main = document.getElementById('main');
const live = document.createElement('p');
live.className = 'visually-hidden';
live.setAttribute('aria-live', 'polite');
document.body.append(live);

let pending: AbortController | undefined;

async function send(form: HTMLFormElement, submitter: HTMLElement | null) {
  if (!main) return;
  const action = submitter?.getAttribute('formaction') || form.action;
  const focusedId = document.activeElement?.id;
  // Where the form sat (the lines or the summary): focus stays there when its element is gone.
  const section = form.closest('[aria-labelledby]')?.getAttribute('aria-labelledby');
  pending?.abort();
  pending = new AbortController();
  try {
    const response = await fetch(action, {
      method: 'POST',
      body: new URLSearchParams(new FormData(form, submitter) as unknown as Record<string, string>),
      headers: { accept: 'text/html' },
      signal: pending.signal,
    });
    const next = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('main');
    if (!next) throw new Error('no cart in the answer');
    main.replaceChildren(...Array.from(next.childNodes).map((node) => document.importNode(node, true)));
    enhance();
    const alert = main.querySelector<HTMLElement>('[role="alert"]');
    live.textContent = alert ? '' : 'Cart updated';
    const nearby = section
      ? main
          .querySelector(`[aria-labelledby="${section}"]`)
          ?.querySelector<HTMLElement>('input:not([type="hidden"]), button, a, select')
      : null;
    const target =
      (focusedId && document.getElementById(focusedId)) || nearby || main.querySelector<HTMLElement>('h1');
    if (target) {
      if (!target.hasAttribute('tabindex') && target.tagName === 'H1') target.tabIndex = -1;
      target.focus();
    }
  } catch (error) {
    if ((error as Error).name === 'AbortError') return;
    // Let the browser do it the plain way.
    form.submit();
  }
}

function enhance() {
  for (const form of main?.querySelectorAll<HTMLFormElement>('form[method="post"]') ?? []) {
    let timer: number | undefined;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      window.clearTimeout(timer);
      void send(form, event.submitter);
    });
    if (!form.hasAttribute('data-cart-quantity')) continue;
    const input = form.querySelector<HTMLInputElement>('input[name="quantity"]');
    input?.addEventListener('change', () => {
      window.clearTimeout(timer);
      if (input.value === '' || !input.checkValidity()) return;
      timer = window.setTimeout(() => void send(form, null), 700);
    });
  }
}

enhance();
