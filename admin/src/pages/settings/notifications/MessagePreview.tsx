import type { RenderedMessage } from '../../../api/types';

/**
 * A rendered e-mail as a mail client would show it: the subject, the HTML part in a sandboxed frame
 * (`sandbox=""`: no scripts, no forms, no navigation, a unique origin that cannot reach the
 * dashboard's cookies or DOM), and the plain-text part as it is.
 */
export function MessagePreview({
  message,
  updating,
  label,
}: {
  message: RenderedMessage | undefined;
  updating: boolean;
  label: string;
}) {
  return (
    <section className="message-preview stack" aria-labelledby="message-preview-title" aria-busy={updating}>
      <div className="preview-head">
        <h2 id="message-preview-title">Preview</h2>
        <span className="hint" data-testid="preview-state">
          {updating ? 'Updating…' : message ? 'Up to date' : ''}
        </span>
      </div>
      {message ? (
        <>
          <p className="preview-subject">
            <span className="hint">Subject</span>{' '}
            <strong data-testid="preview-subject">{message.subject}</strong>
          </p>
          <iframe
            className="preview-frame"
            title={`HTML part of ${label}`}
            sandbox=""
            srcDoc={message.html}
            data-testid="preview-html"
          />
          <h3>Plain-text part</h3>
          <pre className="preview-text" data-testid="preview-text">
            {message.text}
          </pre>
        </>
      ) : (
        <p className="hint">{updating ? 'Rendering the preview…' : 'No preview yet.'}</p>
      )}
    </section>
  );
}
