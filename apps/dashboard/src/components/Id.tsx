import { useState } from 'react';
import { shortId } from '../lib/format';

/**
 * An id shown by its 8-character prefix (which the API and the URLs resolve), the full id in its tooltip, and a
 * button that copies the full id.
 */
export function Id({ id, href }: { id: string; href?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(id).then(() => { setCopied(true); setTimeout(() => setCopied(false), 1500); }, () => setCopied(false));
  };
  return (
    <span className="id" data-testid="id" data-full-id={id}>
      {href ? <a href={href} title={id}>{shortId(id)}</a> : <code title={id}>{shortId(id)}</code>}
      <button type="button" className="copy" onClick={copy} aria-label={`copy the full id ${id}`} title={`copy ${id}`}>{copied ? 'copied' : 'copy'}</button>
    </span>
  );
}
