// The checkout's shipping options without page loads. When the country changes, the form is sent in
// the background as its "Update shipping options" button sends it (nothing is saved), and the
// options, the country's message and its list of states are taken from the answer. Once the cart
// has its address, picking another option saves it at once (as "Use this shipping method" does) and
// the order summary and the Place order button take the new total. Focus stays where it was.
// Without this script the two buttons do the same with a page load.

const live = document.createElement('p');
live.className = 'visually-hidden';
live.setAttribute('aria-live', 'polite');
document.body.append(live);

let pending: AbortController | undefined;

/** Puts `next` (or nothing) where `current` is, else after `anchor`. */
function swap(current: Element | null, next: Element | null, anchor: Element) {
  const node = next ? document.importNode(next, true) : null;
  if (current && node) current.replaceWith(node);
  else if (current) current.remove();
  else if (node) anchor.after(node);
}

async function refresh(form: HTMLFormElement, button: HTMLButtonElement, country: HTMLSelectElement) {
  pending?.abort();
  pending = new AbortController();
  try {
    const response = await fetch(form.action, {
      method: 'POST',
      body: new URLSearchParams(new FormData(form, button) as unknown as Record<string, string>),
      headers: { accept: 'text/html' },
      signal: pending.signal,
    });
    const next = new DOMParser().parseFromString(await response.text(), 'text/html');
    const options = next.getElementById('checkout-shipping');
    const here = form.querySelector('#checkout-shipping');
    if (!options || !here) throw new Error('no shipping options in the answer');
    here.replaceWith(document.importNode(options, true));
    const error = next.getElementById('checkout-country-error');
    swap(document.getElementById('checkout-country-error'), error, country);
    if (error) {
      country.setAttribute('aria-invalid', 'true');
      country.setAttribute('aria-describedby', error.id);
    } else {
      country.removeAttribute('aria-invalid');
      country.removeAttribute('aria-describedby');
    }
    const region = document.getElementById('checkout-region') as HTMLInputElement | null;
    const list = next.getElementById('checkout-region-list');
    if (region) {
      swap(document.getElementById('checkout-region-list'), list, region);
      if (list) region.setAttribute('list', list.id);
      else region.removeAttribute('list');
    }
    const count = options.querySelectorAll('input[type="radio"]').length;
    live.textContent = error?.textContent
      ? error.textContent
      : `${count} shipping ${count === 1 ? 'option' : 'options'} for ${country.selectedOptions[0]?.text ?? ''}`;
  } catch (error) {
    if ((error as Error).name === 'AbortError') return;
    // Leave it to the button: the page stays as it is.
  }
}

/** Saves the option picked (the form's own post) and redraws the totals from the page it leads to. */
async function choose(form: HTMLFormElement, save: HTMLButtonElement) {
  try {
    const response = await fetch(form.action, {
      method: 'POST',
      body: new URLSearchParams(new FormData(form, save) as unknown as Record<string, string>),
      headers: { accept: 'text/html' },
    });
    // Saved, the post redirects to the checkout; anything else (refused) is the server's to show.
    if (!response.ok || !response.redirected) throw new Error('not saved');
    const next = new DOMParser().parseFromString(await response.text(), 'text/html');
    const summary = next.querySelector('.summary-card');
    const here = document.querySelector('.summary-card');
    if (!summary || !here) throw new Error('no summary in the answer');
    here.replaceWith(document.importNode(summary, true));
    const place = '#payment button[type="submit"]';
    const label = next.querySelector(place)?.textContent;
    const button = document.querySelector(place);
    if (label && button) button.textContent = label;
    const checked = form.querySelector<HTMLInputElement>('input[name="shippingRateId"]:checked');
    const name = checked ? form.querySelector(`label[for="${checked.id}"] span`)?.textContent : '';
    live.textContent = `Shipping: ${name ?? ''}. ${label ?? ''}`;
  } catch {
    form.requestSubmit(save);
  }
}

/**
 * Saves one after another, each sending the option checked when it starts: two quick picks can
 * never reach the server in the wrong order (an aborted fetch may still be saved).
 */
let saving = Promise.resolve();
const enqueue = (form: HTMLFormElement, save: HTMLButtonElement) => {
  saving = saving.then(() => choose(form, save));
};

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-checkout-details]')) {
  const button = form.querySelector<HTMLButtonElement>('button[data-shipping-update]');
  const country = form.querySelector<HTMLSelectElement>('select[name="country"]');
  if (button && country) country.addEventListener('change', () => void refresh(form, button, country));
  const save = form.querySelector<HTMLButtonElement>('button[data-shipping-save]');
  if (!save) continue;
  // Picking an option saves it: the button is only needed without this script.
  save.hidden = true;
  form.addEventListener('change', (event) => {
    const target = event.target as HTMLInputElement;
    if (target.name === 'shippingRateId') enqueue(form, save);
  });
}

export {};
