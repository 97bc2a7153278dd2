/** The mark of a suppressed finding, the same in every section: why, by whom and until when (it fails no gate). */
import type { SuppressionMark } from '../../domain/suppressions.js';
import { Html, html } from './markup.js';

export function suppressedNote(mark: SuppressionMark | undefined): Html | '' {
  if (!mark) return '';
  return html`<div class="refs suppressed-note" data-suppressed="${mark.source}"><span class="badge">Suppressed</span> ${mark.reason}${mark.author ? html` <span class="muted">by ${mark.author}</span>` : ''}${mark.expires_at ? html` <span class="muted">until ${mark.expires_at.slice(0, 10)}</span>` : ''}</div>`;
}
