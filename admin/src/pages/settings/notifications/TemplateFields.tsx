import { useRef } from 'react';
import { TextAreaField, TextField } from '../../../components/ui';
import { lineOf, lineRange, type TemplatePart, type TemplateParts } from './notification-text';

/**
 * The three parts of a template, in monospace, each with the error the API gave for it (which names
 * the line); a body's error offers to select that line in the field.
 */
export function TemplateFields({
  draft,
  errors,
  onEdit,
}: {
  draft: TemplateParts;
  errors: Partial<Record<TemplatePart | 'other', string>>;
  onEdit: (part: TemplatePart, value: string) => void;
}) {
  const html = useRef<HTMLTextAreaElement>(null);
  const text = useRef<HTMLTextAreaElement>(null);
  return (
    <>
      <TextField
        label="Subject"
        className="template-field"
        value={draft.subject}
        onChange={(e) => onEdit('subject', e.target.value)}
        error={errors.subject}
        spellCheck={false}
        autoComplete="off"
      />
      <div className="stack-sm">
        <TextAreaField
          ref={html}
          label="HTML body"
          className="template-field"
          rows={16}
          value={draft.html}
          onChange={(e) => onEdit('html', e.target.value)}
          error={errors.html}
          hint="Liquid. Values are HTML-escaped unless followed by | raw."
          spellCheck={false}
          autoComplete="off"
        />
        <GoToLine field={html} label="HTML body" error={errors.html} />
      </div>
      <div className="stack-sm">
        <TextAreaField
          ref={text}
          label="Plain-text body"
          className="template-field"
          rows={10}
          value={draft.text}
          onChange={(e) => onEdit('text', e.target.value)}
          error={errors.text}
          hint="What mail clients show without HTML; nothing is escaped."
          spellCheck={false}
          autoComplete="off"
        />
        <GoToLine field={text} label="plain-text body" error={errors.text} />
      </div>
    </>
  );
}

function GoToLine({
  field,
  label,
  error,
}: {
  field: { current: HTMLTextAreaElement | null };
  label: string;
  error: string | undefined;
}) {
  const line = error ? lineOf(error) : undefined;
  if (line === undefined) return null;
  const go = () => {
    const textarea = field.current;
    const range = textarea && lineRange(textarea.value, line);
    if (!textarea || !range) return;
    textarea.focus();
    textarea.setSelectionRange(range[0], range[1]);
  };
  return (
    <button type="button" className="btn btn-link go-to-line" onClick={go}>
      Go to line {line}
      <span className="visually-hidden"> of the {label}</span>
    </button>
  );
}
