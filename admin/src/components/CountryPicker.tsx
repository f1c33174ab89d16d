import { type KeyboardEvent, type ReactNode, useEffect, useId, useMemo, useRef, useState } from 'react';
import { namer, type Place, searchPlaces } from '../lib/countries';

/**
 * Several countries chosen by typing (the WAI-ARIA combobox with a list box): type part of a name
 * or a code, ↓/↑ to move, Enter to add, Escape to close the list (a second Escape is the dialog's).
 * The chosen ones are chips with a Remove button each; Backspace in the empty box removes the last.
 * Places come from the server (with "Rest of the world" where the caller adds it), never from here.
 */
export function CountryPicker({
  id: givenId,
  label,
  places,
  value,
  onChange,
  error,
  hint,
  placeholder = 'Type a country name or code',
}: {
  /** The input's id (to move the focus to it after an error); one is made up otherwise. */
  id?: string;
  label: string;
  places: readonly Place[];
  value: string[];
  onChange: (codes: string[]) => void;
  error?: string;
  hint?: ReactNode;
  placeholder?: string;
}) {
  const madeUpId = useId();
  const id = givenId ?? madeUpId;
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const nameOf = useMemo(() => namer(places), [places]);
  const matches = useMemo(() => searchPlaces(places, query, value), [places, query, value]);
  const current = Math.min(active, matches.length - 1);
  const optionId = (code: string) => `${id}-option-${code === '*' ? 'rest' : code}`;
  const activeCode = open && current >= 0 ? matches[current]?.code : undefined;
  const listShown = open && matches.length > 0;

  useEffect(() => {
    if (activeCode) document.getElementById(optionId(activeCode))?.scrollIntoView({ block: 'nearest' });
  });

  const pick = (code: string) => {
    onChange([...value, code]);
    setQuery('');
    setActive(0);
    setOpen(false);
    input.current?.focus();
  };
  const remove = (code: string) => {
    onChange(value.filter((c) => c !== code));
    input.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const key = event.key;
    if (key === 'ArrowDown' || key === 'ArrowUp') {
      event.preventDefault();
      if (!open) {
        setOpen(true);
        setActive(key === 'ArrowDown' ? 0 : matches.length - 1);
        return;
      }
      const step = key === 'ArrowDown' ? 1 : -1;
      setActive(Math.max(0, Math.min(matches.length - 1, current + step)));
    } else if (key === 'Enter') {
      // Enter picks; it never submits the form behind a half-typed country.
      if (open && activeCode) {
        event.preventDefault();
        pick(activeCode);
      } else if (query.trim()) event.preventDefault();
    } else if (key === 'Escape') {
      // The list (then the text) first; the dialog's own Escape only once both are gone.
      if (open || query) {
        event.preventDefault();
        event.stopPropagation();
        if (open) setOpen(false);
        else setQuery('');
      }
    } else if (key === 'Backspace' && query === '' && value.length > 0) {
      remove(value[value.length - 1] as string);
    }
  };

  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={`field country-picker ${error ? 'field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {value.length > 0 ? (
        <ul className="chips" aria-label={`${label}: chosen`}>
          {value.map((code) => (
            <li key={code} className="chip">
              <span>{nameOf(code)}</span>
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove ${nameOf(code)}`}
                onClick={() => remove(code)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="combobox">
        <input
          ref={input}
          id={id}
          type="text"
          role="combobox"
          autoComplete="off"
          spellCheck={false}
          aria-autocomplete="list"
          aria-expanded={listShown}
          aria-controls={`${id}-list`}
          aria-activedescendant={listShown && activeCode ? optionId(activeCode) : undefined}
          {...(error ? { 'aria-invalid': true } : {})}
          {...(describedBy ? { 'aria-describedby': describedBy } : {})}
          placeholder={placeholder}
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setActive(0);
            setOpen(true);
          }}
          onClick={() => setOpen(true)}
          onBlur={() => setOpen(false)}
          onKeyDown={onKeyDown}
        />
        <div
          id={`${id}-list`}
          role="listbox"
          aria-label={label}
          className="combobox-list"
          hidden={!listShown}
        >
          {listShown
            ? matches.map((place, index) => (
                <div
                  key={place.code}
                  id={optionId(place.code)}
                  role="option"
                  tabIndex={-1}
                  aria-selected={index === current}
                  className={index === current ? 'active' : undefined}
                  // Picked on the press, before the input's blur would close the list (the keyboard
                  // picks with Enter in the input, which keeps the focus throughout).
                  onMouseDown={(event) => {
                    event.preventDefault();
                    pick(place.code);
                  }}
                >
                  {place.name}
                  {place.code !== '*' ? <span className="hint"> {place.code}</span> : null}
                </div>
              ))
            : null}
        </div>
        {open && query.trim() && matches.length === 0 ? (
          <div className="combobox-empty hint">No country matches “{query.trim()}”.</div>
        ) : null}
      </div>
      <div className="visually-hidden" aria-live="polite">
        {open && query.trim()
          ? `${matches.length} ${matches.length === 1 ? 'country' : 'countries'} match`
          : ''}
      </div>
      {hint ? (
        <div className="hint" id={`${id}-hint`}>
          {hint}
        </div>
      ) : null}
      {error ? (
        <div className="field-error" id={`${id}-error`}>
          {error}
        </div>
      ) : null}
    </div>
  );
}
