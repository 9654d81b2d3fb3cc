// The badges that show a tool's MCP hints (read-only, destructive, ...) as
// list items, the same on the options page's grants table and in the
// approval window: DOM glue for two extension pages, so it sits in shared/
// rather than in either page's folder. The words come from
// bridge/core/grants.js (badgesFor).
import { badgesFor } from '../bridge/core/grants.js';

/** One <li class="badge …"> per hint in annotations, with its explanation as title. */
export function hintBadges(annotations) {
  return badgesFor(annotations).map((b) => {
    const item = document.createElement('li');
    item.className = `badge ${b.key}`;
    item.textContent = b.label;
    item.title = b.hint;
    return item;
  });
}
