package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// The extension's packages ship what their manifest reaches, nothing else:
// every string of the manifest that names a file of the extension, then
// every file those name, found by scanning each text file for paths
// (imports, <script src>, <link href>, url(...), getURL('...'),
// executeScript files), relative to the file or to the extension's root.
// Tests, test data and development files are never reached, and the
// Firefox package, whose background entry wires only the chat bridge,
// leaves out what needs chrome.debugger: the browser agent's code and the
// bridge's tools that drive a tab, which only the Chromium entry wires. No
// extension path is named here: moving the extension's files needs no
// change to the release tool.

// extensionDir is the extension's folder in the repository.
const extensionDir = "extension"

// sourceTree is the extension's files that a package may ship: every file
// under its folder, except folders named test or tests and dot files.
type sourceTree struct {
	dir   string
	files map[string]bool // paths relative to dir, with slashes
}

func readSourceTree(dir string) (*sourceTree, error) {
	t := &sourceTree{dir: dir, files: map[string]bool{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != dir && strings.HasPrefix(name, ".") || d.IsDir() && (name == "test" || name == "tests" || name == "node_modules") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			t.files[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the extension: %w", err)
	}
	return t, nil
}

// pathToken is a path-like word ending in a file extension the extension
// uses.
var pathToken = regexp.MustCompile(`[A-Za-z0-9_.][A-Za-z0-9_./-]*\.(?:m?js|html|css|png|svg|jpe?g|gif|ico|webp|txt|json|woff2?)\b`)

// scanned are the kinds of file whose text can name other files.
var scanned = map[string]bool{".js": true, ".mjs": true, ".html": true, ".css": true}

// reach returns, sorted, the files reached from the roots (paths relative
// to the extension) and from what they name in turn. manifest.json itself
// is not among them: each package writes its own.
func (t *sourceTree) reach(roots []string) ([]string, error) {
	seen := map[string]bool{}
	queue := append([]string{}, roots...)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] || p == "manifest.json" {
			continue
		}
		if !t.files[p] {
			return nil, fmt.Errorf("the extension has no file %s", p)
		}
		seen[p] = true
		if !scanned[path.Ext(p)] {
			continue
		}
		data, err := os.ReadFile(filepath.Join(t.dir, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		for _, tok := range pathToken.FindAllString(withoutComments(p, string(data)), -1) {
			queue = append(queue, t.resolve(p, tok)...)
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// resolve turns a path named in file from into the extension's files it may
// mean: relative to from's folder (imports, HTML, CSS) or to the root
// (getURL, executeScript, the manifest).
func (t *sourceTree) resolve(from, tok string) []string {
	var out []string
	for _, c := range []string{path.Join(path.Dir(from), tok), path.Clean(strings.TrimPrefix(tok, "/"))} {
		if t.files[c] && !contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

var (
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	cssComment  = regexp.MustCompile(`(?s)/\*.*?\*/`)
	// jsComment is a line that is only a comment: // ..., /* ..., or the
	// * ... of a block. A comment after code stays (telling it apart from
	// '//' or '/*' inside a string needs a parser); a path there is only a
	// path that happens to exist.
	jsComment = regexp.MustCompile(`(?m)^[ \t]*(?://|/\*|\*).*$`)
)

// withoutComments drops what a comment says about other files, so that a
// comment naming the browser agent's code does not bring it into Firefox's
// package.
func withoutComments(name, text string) string {
	switch path.Ext(name) {
	case ".html":
		return htmlComment.ReplaceAllString(text, "")
	case ".css":
		return cssComment.ReplaceAllString(text, "")
	}
	return jsComment.ReplaceAllString(text, "")
}

// manifestFiles returns every string of the manifest m that names a file of
// the tree, outside web_accessible_resources: a resource is web-accessible
// only if something else in the package uses it (keepReached).
func (t *sourceTree) manifestFiles(m map[string]any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if p := path.Clean(strings.TrimPrefix(v, "/")); t.files[p] && !contains(out, p) {
				out = append(out, p)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				if k != "web_accessible_resources" {
					walk(e)
				}
			}
		}
	}
	walk(m)
	sort.Strings(out)
	return out
}

// keepReached removes from m's web_accessible_resources the resources that
// are not among files, and the entries left with none.
func keepReached(m map[string]any, files []string) {
	entries, _ := m["web_accessible_resources"].([]any)
	var kept []any
	for _, e := range entries {
		entry, ok := e.(map[string]any)
		if !ok {
			continue
		}
		res, _ := entry["resources"].([]any)
		var in []any
		for _, r := range res {
			if s, _ := r.(string); contains(files, path.Clean(strings.TrimPrefix(s, "/"))) {
				in = append(in, r)
			}
		}
		if len(in) > 0 {
			entry["resources"] = in
			kept = append(kept, entry)
		}
	}
	if len(kept) == 0 {
		delete(m, "web_accessible_resources")
	} else if entries != nil {
		m["web_accessible_resources"] = kept
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
