// What the Side Panel's Settings say about gnosis-host's workspace folder
// (Upload and Download go through it), from the host's workspace.info reply:
// the folder and its room, that none is set up and how to set one, or why the
// one set cannot be used. Each fact is said once. Pure: no DOM, no chrome.*.

const HOW = 'add "workspace": {"dir": "/absolute/path/to/a/folder"} to the gnosis-host configuration file, then restart the browser';

/**
 * @param {{configured?: boolean, dir?: string, error?: string, freeBytes?: number}} info
 * @returns {{tone: 'ok'|'warning', text: string}}
 */
export function workspaceStatus(info) {
  if (info?.configured) {
    const free = Number.isFinite(info.freeBytes) ? `, ${(info.freeBytes / 2 ** 30).toFixed(1)} GiB free` : '';
    return { tone: 'ok', text: `Workspace folder: ${info.dir}${free}. The agent may upload files from it (up to 64 MiB each) and save downloads into it (up to 256 MiB; existing files are never overwritten).` };
  }
  if (!info?.dir) {
    return { tone: 'warning', text: `No workspace folder is set up. To let the agent upload and download files, ${HOW}. Choosing a folder in the browser (File System Access API) is not supported.` };
  }
  // The host's reason names the folder itself ("workspace folder "x" cannot be opened"): said once.
  const why = String(info.error || '').replace(/\.$/, '');
  const rest = /^workspace folder /i.test(why) ? why.replace(/^workspace folder /i, '') : '';
  const what = rest ? `The workspace folder ${rest}` : `The workspace folder ${info.dir} cannot be used${why ? `: ${why}` : ''}`;
  return { tone: 'warning', text: `${what}. Fix "workspace" in the gnosis-host configuration file (an absolute path to a folder that exists), then restart the browser.` };
}
