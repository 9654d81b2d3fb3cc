// Command bench measures gnosis-host against a direct mcp-go client talking
// to the same fake Munim, in one run: per-call latency, cold start, a 16 MiB
// result's throughput, and the idle host's memory; then the latency again
// against the real Node server @modelcontextprotocol/server-everything (from
// node_modules), beside the same direct client. It prints each figure next
// to its baseline and target with PASS or FAIL. Run it with `make bench`.
//
// Host and direct measurements alternate in batches, so drift of the machine
// (frequency scaling, other load) falls on both sides.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	rounds := flag.Int("rounds", 10, "alternating rounds of latency batches")
	batch := flag.Int("batch", 300, "calls per latency batch")
	coldRuns := flag.Int("cold", 15, "cold starts per side")
	bigRuns := flag.Int("big", 5, "16 MiB transfers per side")
	only := flag.String("only", "", "run one part: latency, cold, big, rss or node (e.g. under perf record)")
	keep := flag.String("keep", "", "build the binaries into this directory and keep them (so perf can resolve symbols)")
	flag.Parse()
	want := func(part string) bool { return *only == "" || *only == part }

	dir, err := os.MkdirTemp("", "gnosis-bench-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)
	binDir := dir
	if *keep != "" {
		binDir = *keep
	}
	bins, err := build(binDir)
	if err != nil {
		fatal(err)
	}

	fmt.Printf("gnosis-host benchmark, %s\n%s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), machine())
	var rows []row
	for _, part := range []struct {
		name string
		run  func() ([]row, error)
	}{
		{"latency", func() ([]row, error) { return latency(bins, dir, *rounds, *batch) }},
		{"cold", func() ([]row, error) { return coldStart(bins, dir, *coldRuns) }},
		{"big", func() ([]row, error) { return bigResult(bins, dir, *bigRuns) }},
		{"rss", func() ([]row, error) { return idleRSS(bins, dir) }},
		{"node", func() ([]row, error) { return nodeLatency(bins, dir, *rounds, *batch) }},
	} {
		if !want(part.name) {
			continue
		}
		r, err := part.run()
		if err != nil {
			fatal(fmt.Errorf("%s: %w", part.name, err))
		}
		rows = append(rows, r...)
	}
	printTable(rows)
}

// binaries are the programs under test, built for this run.
type binaries struct {
	host, fake string
}

func build(dir string) (binaries, error) {
	b := binaries{host: filepath.Join(dir, "gnosis-host"), fake: filepath.Join(dir, "fakemunim")}
	for pkg, out := range map[string]string{"./cmd/gnosis-host": b.host, "./tests/fakemunim": b.fake} {
		// Symbols kept, so `perf record` of a run can name the host's functions.
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return b, fmt.Errorf("build %s: %w", pkg, err)
		}
	}
	return b, nil
}

// machine describes where the figures were taken.
func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = " " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%s, %d CPUs, %s/%s%s, %s", cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, kernel, runtime.Version())
}

// row is one line of the result table.
type row struct {
	what, host, baseline, target string
	pass                         *bool // nil when the row has no target
}

func verdict(ok bool) *bool { return &ok }

func printTable(rows []row) {
	w := [4]int{len("measure"), len("gnosis-host"), len("baseline"), len("target")}
	for _, r := range rows {
		for i, s := range []string{r.what, r.host, r.baseline, r.target} {
			w[i] = max(w[i], len(s))
		}
	}
	line := func(a, b, c, d, e string) {
		fmt.Printf("| %-*s | %-*s | %-*s | %-*s | %-4s |\n", w[0], a, w[1], b, w[2], c, w[3], d, e)
	}
	line("measure", "gnosis-host", "baseline", "target", "")
	fmt.Printf("|%s|%s|%s|%s|------|\n", strings.Repeat("-", w[0]+2), strings.Repeat("-", w[1]+2), strings.Repeat("-", w[2]+2), strings.Repeat("-", w[3]+2))
	failed := false
	for _, r := range rows {
		v := ""
		if r.pass != nil {
			v = "PASS"
			if !*r.pass {
				v, failed = "FAIL", true
			}
		}
		line(r.what, r.host, r.baseline, r.target, v)
	}
	if failed {
		fmt.Println("\nsome targets failed")
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}
