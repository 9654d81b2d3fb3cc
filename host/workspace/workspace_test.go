package workspace

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/google/go-cmp/cmp"
)

// fixture builds a workspace folder next to an "outside" folder holding a
// secret, with symbolic links that try to reach it.
func fixture(t *testing.T, opts ...Option) (*Workspace, string, string) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{dir, outside, filepath.Join(dir, "docs", "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(outside, "secret.txt"), "top secret")
	write(t, filepath.Join(dir, "report.pdf"), "%PDF-1.7 fake")
	write(t, filepath.Join(dir, "docs", "notes.txt"), "hello notes")
	write(t, filepath.Join(dir, "docs", "deep", "data.csv"), "a,b\n1,2\n")
	write(t, filepath.Join(dir, tempPrefix+"stale.part"), "half")
	must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "abs-link.txt")))
	must(t, os.Symlink("../outside/secret.txt", filepath.Join(dir, "rel-link.txt")))
	must(t, os.Symlink("../outside", filepath.Join(dir, "outdir")))
	must(t, os.Symlink("docs/notes.txt", filepath.Join(dir, "inside-link.txt")))
	w := Open(dir, opts...)
	t.Cleanup(func() { w.Close() })
	return w, dir, outside
}

func write(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.WriteFile(p, []byte(s), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func codeOf(err error) wire.Code {
	if err == nil {
		return ""
	}
	return wire.CodeOf(err)
}

func TestListShowsRegularFilesOnlyWithSizesAndTypes(t *testing.T) {
	w, _, _ := fixture(t)
	got, err := w.List()
	must(t, err)
	want := Inventory{Files: []Entry{
		{Path: "docs/deep/data.csv", Size: 8, MIME: "text/csv"},
		{Path: "docs/notes.txt", Size: 11, MIME: "text/plain"},
		{Path: "report.pdf", Size: 13, MIME: "application/pdf"},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("inventory (-want +got):\n%s", d)
	}
}

func TestListIsBoundedInDepth(t *testing.T) {
	w, dir, _ := fixture(t)
	deep := filepath.Join(dir, "a", "b", "c", "d", "e", "f", "g")
	must(t, os.MkdirAll(deep, 0o755))
	write(t, filepath.Join(deep, "too-deep.txt"), "x")
	got, err := w.List()
	must(t, err)
	if !got.Truncated {
		t.Error("Truncated = false, want true")
	}
	for _, f := range got.Files {
		if strings.Contains(f.Path, "too-deep") {
			t.Errorf("listed %q beyond the depth bound", f.Path)
		}
	}
}

func TestReadRefusesEverythingOutsideTheFolder(t *testing.T) {
	w, _, outside := fixture(t)
	tests := []struct {
		name, path string
		want       wire.Code
	}{
		{"absolute path", filepath.Join(outside, "secret.txt"), wire.CodeForbidden},
		{"parent segment", "../outside/secret.txt", wire.CodeForbidden},
		{"parent inside the path", "docs/../../outside/secret.txt", wire.CodeForbidden},
		{"windows drive", "C:/Windows/win.ini", wire.CodeForbidden},
		{"backslashes", `docs\notes.txt`, wire.CodeInvalidRequest},
		{"empty", "", wire.CodeInvalidRequest},
		{"dot segment", "./report.pdf", wire.CodeInvalidRequest},
		{"absolute symlink out", "abs-link.txt", wire.CodeForbidden},
		{"relative symlink out", "rel-link.txt", wire.CodeForbidden},
		{"through a linked folder", "outdir/secret.txt", wire.CodeForbidden},
		{"missing file", "nope.txt", wire.CodeFileNotFound},
		{"a folder", "docs", wire.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := w.Read(tt.path, 0, 0)
			if got := codeOf(err); got != tt.want {
				t.Fatalf("Read(%q) code = %q (err %v), want %q", tt.path, got, err, tt.want)
			}
			if strings.Contains(string(p.Data), "secret") {
				t.Fatalf("Read(%q) leaked the outside file", tt.path)
			}
		})
	}
}

func TestReadFollowsLinksThatStayInside(t *testing.T) {
	w, _, _ := fixture(t)
	p, err := w.Read("inside-link.txt", 0, 0)
	must(t, err)
	if string(p.Data) != "hello notes" {
		t.Errorf("data = %q", p.Data)
	}
}

func TestReadReturnsPieces(t *testing.T) {
	w, _, _ := fixture(t, WithLimits(1<<20, 1<<20, 4))
	tests := []struct {
		offset, length int64
		want           Piece
	}{
		{0, 0, Piece{Data: []byte("hell"), Size: 11, MIME: "text/plain"}},
		{4, 3, Piece{Data: []byte("o n"), Size: 11, MIME: "text/plain"}},
		{8, 100, Piece{Data: []byte("tes"), Size: 11, EOF: true, MIME: "text/plain"}},
		{11, 0, Piece{Data: []byte{}, Size: 11, EOF: true, MIME: "text/plain"}},
	}
	for _, tt := range tests {
		got, err := w.Read("docs/notes.txt", tt.offset, tt.length)
		must(t, err)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Read(offset %d, length %d) (-want +got):\n%s", tt.offset, tt.length, d)
		}
	}
	if _, err := w.Read("docs/notes.txt", 12, 1); codeOf(err) != wire.CodeInvalidRequest {
		t.Errorf("offset past the end: err %v", err)
	}
}

func TestReadRefusesFilesAboveTheUploadLimit(t *testing.T) {
	w, _, _ := fixture(t, WithLimits(10, 1<<20, 1<<20))
	if _, err := w.Read("docs/notes.txt", 0, 1); codeOf(err) != wire.CodeFileTooLarge {
		t.Fatalf("err = %v, want FILE_TOO_LARGE", err)
	}
}

func TestDownloadCreatesOneNewFile(t *testing.T) {
	w, dir, _ := fixture(t)
	h, err := w.Create("paper.pdf")
	must(t, err)
	for _, part := range []string{"%PDF", "-1.7 ", "body"} {
		_, err := w.Append(h, []byte(part))
		must(t, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "paper.pdf")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("final name visible before commit: %v", err)
	}
	name, size, err := w.Commit(h)
	must(t, err)
	if name != "paper.pdf" || size != 13 {
		t.Errorf("Commit = %q, %d", name, size)
	}
	got, err := os.ReadFile(filepath.Join(dir, "paper.pdf"))
	must(t, err)
	if string(got) != "%PDF-1.7 body" {
		t.Errorf("content = %q", got)
	}
	assertNoTempFiles(t, dir)
	if _, _, err := w.Commit(h); codeOf(err) != wire.CodeInvalidRequest {
		t.Errorf("second commit: %v", err)
	}
}

func TestDownloadNamesAreOneFileName(t *testing.T) {
	w, _, _ := fixture(t)
	tests := []struct {
		name string
		want wire.Code
	}{
		{"ok.txt", ""},
		{"report.pdf", wire.CodeFileExists},
		{"docs", wire.CodeFileExists},
		{"abs-link.txt", wire.CodeFileExists}, // a link counts as existing; it is never written through
		{"", wire.CodeInvalidRequest},
		{"..", wire.CodeInvalidRequest},
		{".", wire.CodeInvalidRequest},
		{"../escape.txt", wire.CodeInvalidRequest},
		{"docs/new.txt", wire.CodeInvalidRequest},
		{`docs\new.txt`, wire.CodeInvalidRequest},
		{"/tmp/x.txt", wire.CodeInvalidRequest},
		{"C:x.txt", wire.CodeInvalidRequest},
		{"CON", wire.CodeInvalidRequest},
		{"com1.txt", wire.CodeInvalidRequest},
		{"trailing.", wire.CodeInvalidRequest},
		{"bell\a.txt", wire.CodeInvalidRequest},
		{tempPrefix + "x.part", wire.CodeInvalidRequest},
		{strings.Repeat("n", 256), wire.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := w.Create(tt.name)
			if got := codeOf(err); got != tt.want {
				t.Fatalf("Create(%q) code = %q (err %v), want %q", tt.name, got, err, tt.want)
			}
			if err == nil {
				must(t, w.Abort(h))
			}
		})
	}
}

func TestDownloadNeverOverwritesAFileThatAppearsMeanwhile(t *testing.T) {
	w, dir, _ := fixture(t)
	h, err := w.Create("late.txt")
	must(t, err)
	_, err = w.Append(h, []byte("download"))
	must(t, err)
	write(t, filepath.Join(dir, "late.txt"), "user's file")
	if _, _, err := w.Commit(h); codeOf(err) != wire.CodeFileExists {
		t.Fatalf("Commit err = %v, want FILE_EXISTS", err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "late.txt"))
	if string(got) != "user's file" {
		t.Errorf("existing file changed to %q", got)
	}
	assertNoTempFiles(t, dir)
}

func TestConcurrentCreatesOfOneNameYieldOneHandle(t *testing.T) {
	w, _, _ := fixture(t)
	const n = 8
	var wg sync.WaitGroup
	codes := make([]wire.Code, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := w.Create("same.txt")
			codes[i] = codeOf(err)
		}()
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case "":
			ok++
		case wire.CodeFileExists:
		default:
			t.Errorf("unexpected code %q", c)
		}
	}
	if ok != 1 {
		t.Errorf("%d creates succeeded, want 1 (codes %v)", ok, codes)
	}
}

// Two hosts (two workspaces on one folder) racing to commit the same name:
// exactly one wins and its bytes are the file's.
func TestRacingCommitsFromTwoHostsHaveOneWinner(t *testing.T) {
	w1, dir, _ := fixture(t)
	w2 := Open(dir)
	defer w2.Close()
	for round := range 20 {
		name := "race-" + string(rune('a'+round)) + ".txt"
		h1, err := w1.Create(name)
		must(t, err)
		h2, err := w2.Create(name)
		must(t, err)
		_, _ = w1.Append(h1, []byte("one"))
		_, _ = w2.Append(h2, []byte("two"))
		var wg sync.WaitGroup
		var err1, err2 error
		wg.Add(2)
		go func() { defer wg.Done(); _, _, err1 = w1.Commit(h1) }()
		go func() { defer wg.Done(); _, _, err2 = w2.Commit(h2) }()
		wg.Wait()
		if (err1 == nil) == (err2 == nil) {
			t.Fatalf("%s: both or neither committed: %v / %v", name, err1, err2)
		}
		loser := err1
		want := "two"
		if err1 == nil {
			loser, want = err2, "one"
		}
		if codeOf(loser) != wire.CodeFileExists {
			t.Errorf("loser code = %q", codeOf(loser))
		}
		got, _ := os.ReadFile(filepath.Join(dir, name))
		if string(got) != want {
			t.Errorf("%s = %q, want the winner's %q", name, got, want)
		}
	}
	assertNoTempFiles(t, dir)
}

func TestDownloadAboveTheLimitIsDiscarded(t *testing.T) {
	w, dir, _ := fixture(t, WithLimits(1<<20, 10, 1<<20))
	h, err := w.Create("big.bin")
	must(t, err)
	_, err = w.Append(h, []byte("123456"))
	must(t, err)
	if _, err := w.Append(h, []byte("78901")); codeOf(err) != wire.CodeFileTooLarge {
		t.Fatalf("err = %v, want FILE_TOO_LARGE", err)
	}
	if _, _, err := w.Commit(h); codeOf(err) != wire.CodeInvalidRequest {
		t.Errorf("commit after discard: %v", err)
	}
	assertNoTempFiles(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "big.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("big.bin exists: %v", err)
	}
}

func TestAbortAndCloseRemoveTemporaryFiles(t *testing.T) {
	w, dir, _ := fixture(t)
	h, err := w.Create("a.txt")
	must(t, err)
	must(t, w.Abort(h))
	if err := w.Abort(h); codeOf(err) != wire.CodeInvalidRequest {
		t.Errorf("second abort: %v", err)
	}
	if _, err := w.Create("b.txt"); err != nil {
		t.Fatal(err)
	}
	must(t, w.Close())
	assertNoTempFiles(t, dir)
}

func TestUnconfiguredWorkspaceSaysSo(t *testing.T) {
	for _, dir := range []string{"", "relative/dir", filepath.Join(t.TempDir(), "missing")} {
		w := Open(dir)
		if _, err := w.List(); codeOf(err) != wire.CodeNotConfigured {
			t.Errorf("Open(%q).List err = %v", dir, err)
		}
		if _, err := w.Create("x.txt"); codeOf(err) != wire.CodeNotConfigured {
			t.Errorf("Open(%q).Create err = %v", dir, err)
		}
		got, err := w.Methods()["workspace.info"](context.Background(), nil, nil, nil)
		must(t, err)
		r := got.(infoReply)
		if r.Configured || r.Error == "" {
			t.Errorf("Open(%q) info = %+v", dir, r)
		}
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) && e.Name() != tempPrefix+"stale.part" {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// call runs a protocol method and returns its reply as generic JSON.
func call(t *testing.T, w *Workspace, method, params string) (map[string]any, error) {
	t.Helper()
	res, err := w.Methods()[method](context.Background(), json.RawMessage(`1`), json.RawMessage(params), nil)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(res)
	must(t, err)
	var m map[string]any
	must(t, json.Unmarshal(b, &m))
	return m, nil
}

func TestMethodsSpeakJSON(t *testing.T) {
	w, dir, _ := fixture(t)
	info, err := call(t, w, "workspace.info", `{}`)
	must(t, err)
	if info["configured"] != true || info["dir"] != dir {
		t.Errorf("info = %v", info)
	}
	if _, ok := info["freeBytes"].(float64); !ok {
		t.Errorf("info has no freeBytes: %v", info)
	}
	r, err := call(t, w, "workspace.read", `{"path":"docs/notes.txt","offset":6,"length":5}`)
	must(t, err)
	want := map[string]any{"path": "docs/notes.txt", "offset": 6.0, "data": base64.StdEncoding.EncodeToString([]byte("notes")),
		"size": 11.0, "eof": true, "mime": "text/plain"}
	if d := cmp.Diff(want, r); d != "" {
		t.Errorf("read (-want +got):\n%s", d)
	}
	c, err := call(t, w, "workspace.create", `{"name":"out.txt"}`)
	must(t, err)
	h := c["handle"].(string)
	a, err := call(t, w, "workspace.append", `{"handle":"`+h+`","data":"`+base64.StdEncoding.EncodeToString([]byte("saved"))+`"}`)
	must(t, err)
	if a["written"] != 5.0 {
		t.Errorf("append = %v", a)
	}
	done, err := call(t, w, "workspace.commit", `{"handle":"`+h+`"}`)
	must(t, err)
	if d := cmp.Diff(map[string]any{"path": "out.txt", "size": 5.0}, done); d != "" {
		t.Errorf("commit (-want +got):\n%s", d)
	}
	bad := []struct{ method, params string }{
		{"workspace.read", `{"path":1}`},
		{"workspace.read", `{"file":"docs/notes.txt"}`},
		{"workspace.append", `{"handle":"` + h + `","data":"%%%"}`},
		{"workspace.create", `[]`},
	}
	for _, b := range bad {
		if _, err := call(t, w, b.method, b.params); codeOf(err) != wire.CodeInvalidRequest {
			t.Errorf("%s %s: err %v, want INVALID_REQUEST", b.method, b.params, err)
		}
	}
}

func TestOpenRemovesOnlyStaleTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, tempPrefix+"old.part")
	young := filepath.Join(dir, tempPrefix+"young.part")
	user := filepath.Join(dir, "old-user-file.txt")
	for _, p := range []string{old, young, user} {
		write(t, p, "x")
	}
	long := time.Now().Add(-48 * time.Hour)
	must(t, os.Chtimes(old, long, long))
	must(t, os.Chtimes(user, long, long))
	w := Open(dir)
	defer w.Close()
	for p, want := range map[string]bool{old: false, young: true, user: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
