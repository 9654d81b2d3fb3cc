// Package workspace confines the browser agent's file transfers to one folder
// chosen in the host's configuration.
//
// The agent uploads files from that folder into web pages and saves downloads
// into it. Everything a page or a model names is untrusted, so every access
// goes through an os.Root opened on the folder: absolute paths, ".." and
// symbolic links that lead outside are refused, and a download can only ever
// create one new file at the top of the folder, never replace one. Downloads
// are written to a private temporary file first and published with a hard link
// (which fails if the name exists), so a half-written file is never visible
// under its final name and two downloads racing for one name cannot both win.
// A saved file gets the permissions the user's umask allows and, on Windows,
// the Mark-of-the-Web, so it is treated like the browser's own downloads.
//
// Names a page or model proposes are refused when they could read differently
// than they are (bidi controls, zero-width characters, leading dots or spaces)
// or mean a device on Windows. Uploads read only regular files, checked on the
// opened descriptor, which is opened without waiting so a FIFO cannot block.
package workspace
