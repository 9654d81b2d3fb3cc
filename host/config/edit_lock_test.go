package config

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// envEditor makes this test binary an editor process (editorProcess):
// "path count name" adds count providers named name-0, name-1, ... to the
// config file at path, one Edit each.
const envEditor = "GNOSIS_CONFIG_TEST_EDITOR"

func TestMain(m *testing.M) {
	if v := os.Getenv(envEditor); v != "" {
		if err := editorProcess(v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func editorProcess(spec string) error {
	var path, name string
	var count int
	if _, err := fmt.Sscan(spec, &path, &count, &name); err != nil {
		return fmt.Errorf("%s=%q: %w", envEditor, spec, err)
	}
	return addProviders(path, name, count)
}

func addProviders(path, name string, count int) error {
	for i := range count {
		if err := SetProvider(path, Provider{Name: name + "-" + strconv.Itoa(i), Command: "/bin/true", Prefix: name + strconv.Itoa(i)}); err != nil {
			return err
		}
	}
	return nil
}

// Processes that edit one config file at once (the running host, an
// install) each read, change and replace the whole file: without a lock
// between processes one writes over what another just wrote. Every edit of
// every process must be in the file at the end.
func TestEditsOfSeveralProcessesAreAllKept(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gnosis", "config.json")
	const processes, each = 3, 30
	var wg sync.WaitGroup
	errs := make(chan error, processes+2)
	for p := range processes {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d proc%d", envEditor, path, each, p))
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("editor process: %v\n%s", err, out)
			}
		})
	}
	for g := range 2 { // and goroutines of this process, beside them
		wg.Go(func() {
			if err := addProviders(path, "goroutine"+strconv.Itoa(g), each); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	cfg, _, problem := Load(func(k string) string {
		if k == EnvConfig {
			return path
		}
		return ""
	})
	if problem != nil {
		t.Fatal(problem)
	}
	names := map[string]bool{}
	for _, p := range cfg.Providers {
		names[p.Name] = true
	}
	var lost []string
	for _, who := range []string{"proc0", "proc1", "proc2", "goroutine0", "goroutine1"} {
		for i := range each {
			if n := who + "-" + strconv.Itoa(i); !names[n] {
				lost = append(lost, n)
			}
		}
	}
	if len(lost) > 0 {
		t.Errorf("%d of %d edits lost, among them %v", len(lost), (processes+2)*each, lost[:min(len(lost), 5)])
	}
}
