package main

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// testVersion is stamped into every test build, so the tests share them.
const testVersion = "7.8.9"

// buildCache builds each target once per test binary and hands out copies
// (a copy, because signing rewrites the binary in place).
type buildCache struct {
	dir    string
	mu     sync.Mutex
	builds map[string]*cachedBuild
}

type cachedBuild struct {
	once sync.Once
	path string
	err  error
}

func (c *buildCache) build(goos, goarch, version, bin string) error {
	key := goos + "-" + goarch + "-" + version
	c.mu.Lock()
	b, ok := c.builds[key]
	if !ok {
		b = &cachedBuild{path: filepath.Join(c.dir, key, filepath.Base(bin))}
		c.builds[key] = b
	}
	c.mu.Unlock()
	b.once.Do(func() { b.err = build(goos, goarch, version, b.path) })
	if b.err != nil {
		return b.err
	}
	return copyFile(b.path, bin)
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gnosis-release-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildHost = (&buildCache{dir: dir, builds: map[string]*cachedBuild{}}).build
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// slow skips a test that builds hosts or packages under go test -short.
func slow(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds release packages; skipped with -short")
	}
}

// zipEntries lists a zip's files with their modes.
func zipEntries(t *testing.T, name string) map[string]os.FileMode {
	t.Helper()
	zr, err := zip.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	m := map[string]os.FileMode{}
	for _, f := range zr.File {
		m[f.Name] = f.Mode().Perm()
	}
	return m
}

// zipFile returns one entry's bytes.
func zipFile(t *testing.T, zipName, entry string) []byte {
	t.Helper()
	zr, err := zip.OpenReader(zipName)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != entry {
			continue
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	t.Fatalf("%s has no %s", zipName, entry)
	return nil
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
