// The task box's "Start on: This tab / The desktop" choice as the other
// panel modules read it: where the next task starts, and the prompt that
// names it. DOM glue.

/** Where the person chose to start the next task: 'tab' or 'desktop'. */
export function chosenSurface() {
  return document.querySelector('input[name="surface"]:checked')?.value === 'desktop' ? 'desktop' : 'tab';
}

/** The task box's prompt when no task runs: it names where the next task starts. */
export function idlePlaceholder() {
  return chosenSurface() === 'desktop' ? 'What should the agent do on the desktop?' : 'What should the agent do on the current tab?';
}
