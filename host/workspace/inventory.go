package workspace

import (
	"io/fs"
	"mime"
	"path"
	"sort"
	"strings"
)

// Inventory bounds: the listing goes into a model prompt, so it stays short.
const (
	maxEntries = 500
	maxDepth   = 6
)

// Entry is one file of the inventory the model chooses uploads from.
type Entry struct {
	Path string `json:"path"` // relative, forward slashes
	Size int64  `json:"size"`
	MIME string `json:"mime"`
}

// Inventory is the workspace listing; Truncated says entries were left out
// because of the count or depth bound.
type Inventory struct {
	Files     []Entry `json:"files"`
	Truncated bool    `json:"truncated"`
}

// List walks the folder (regular files only: symbolic links, devices and
// downloads in progress are left out), at most maxDepth folders deep and
// maxEntries files, sorted by path.
func (w *Workspace) List() (Inventory, error) {
	if err := w.ready(); err != nil {
		return Inventory{}, err
	}
	inv := Inventory{Files: []Entry{}}
	err := fs.WalkDir(w.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // an unreadable subfolder is skipped, not fatal
		}
		if p == "." {
			return nil
		}
		if d.IsDir() {
			if strings.Count(p, "/")+1 >= maxDepth {
				inv.Truncated = true
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), tempPrefix) {
			return nil
		}
		if _, bad := cleanRelative(p); bad != "" {
			return nil // a name the agent could not ask for anyway
		}
		if len(inv.Files) == maxEntries {
			inv.Truncated = true
			return fs.SkipAll
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		inv.Files = append(inv.Files, Entry{Path: p, Size: info.Size(), MIME: mimeOf(p)})
		return nil
	})
	if err != nil {
		return Inventory{}, w.pathError(".", err)
	}
	sort.Slice(inv.Files, func(i, j int) bool { return inv.Files[i].Path < inv.Files[j].Path })
	return inv, nil
}

// commonTypes makes the inventory the same on every platform for the files
// an agent meets most; anything else asks the mime package.
var commonTypes = map[string]string{
	".txt": "text/plain", ".md": "text/markdown", ".csv": "text/csv", ".json": "application/json",
	".html": "text/html", ".htm": "text/html", ".xml": "application/xml", ".pdf": "application/pdf",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml", ".zip": "application/zip",
	".doc": "application/msword", ".xls": "application/vnd.ms-excel",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".mp3":  "audio/mpeg", ".mp4": "video/mp4", ".wav": "audio/wav",
}

func mimeOf(p string) string {
	ext := strings.ToLower(path.Ext(p))
	if t, ok := commonTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		if base, _, err := mime.ParseMediaType(t); err == nil {
			return base
		}
	}
	return "application/octet-stream"
}
