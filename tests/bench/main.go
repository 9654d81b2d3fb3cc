// Command bench measures gnosis-host's own cost, as ratios to baselines
// measured in the same run, against two MCP servers: tests/fakemunim (mcp-go)
// with 50 extra tools, and the real Node server
// @modelcontextprotocol/server-everything from node_modules. For each it
// prints, with PASS or FAIL against the target:
//
//  1. execute p50 ÷ (direct mcp-go client p50 + the host's health p50) ≤ 1.15;
//  2. cold start to ready ÷ (the host with no provider to its first health
//     reply + the server's own spawn, initialize and tools/list under a
//     direct mcp-go client) ≤ 1.2;
//  3. idle RSS of the host with its provider ready ≤ 20 MB;
//  4. a 16 MiB result through the host ÷ through the direct client ≤ 1.3;
//  5. execute p50 of a tool with an outputSchema and a ~8 KB structured
//     result, as 1 (fakemunim only, schemas.go);
//  6. peak RSS with a 10 MB / 200,000-pattern schema ≤ without + 100 MB
//     (fakemunim only, schemas.go).
//
// and, once, the host's peak RSS in two cases that must stay bounded
// (memory.go): 100 × 8 MiB workspace.read at once, a 500 MB result line;
// and the schema validator's compile and validate time for a typical
// 10-property tool schema, each ≤ 1.0× santhosh-tekuri/jsonschema/v6's
// in the same run (validator.go); and that validation never holds the
// host (validation.go): health's p50 while a 1,000-item catastrophic call
// validates ≤ 2× its idle p50, in alternating batches, and the peak RSS of
// a 50 MB call its validator reads whole ≤ 8× the request.
//
// Compared measurements alternate in batches (or rotate, for cold starts),
// so drift of the machine (frequency scaling, other load) falls on both
// sides. Run it with `make bench`.
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
	only := flag.String("only", "", "run one part: latency, cold, rss, big, output, schema, validator, memory or validation (e.g. under perf record)")
	srv := flag.String("server", "", "run against one server: fake or everything (none: no server, with -only memory)")
	hostBin := flag.String("host", "", "measure this gnosis-host binary instead of building one (to compare two trees)")
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
	if *hostBin != "" {
		bins.host = *hostBin
	}

	servers := []server{}
	if *srv == "" || *srv == "fake" {
		servers = append(servers, fakeServer(bins, 50))
	}
	if *srv == "" || *srv == "everything" {
		s, ok, err := everythingServer()
		if err != nil {
			fatal(err)
		}
		if ok {
			servers = append(servers, s)
		} else {
			fmt.Println("server-everything skipped: run npm ci and install node")
		}
	}

	fmt.Printf("gnosis-host benchmark, %s, load %s\n%s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), load(), machine())
	failed := false
	for _, s := range servers {
		var rows []row
		for _, part := range []struct {
			name string
			run  func() ([]row, error)
		}{
			{"latency", func() ([]row, error) { return latency(bins, dir, s, *rounds, *batch) }},
			{"cold", func() ([]row, error) { return coldStart(bins, dir, s, *coldRuns) }},
			{"rss", func() ([]row, error) { return idleRSS(bins, dir, s) }},
			{"big", func() ([]row, error) { return bigResult(bins, dir, s, *bigRuns) }},
			{"output", func() ([]row, error) { return outputLatency(bins, dir, s, *rounds, *batch) }},
			{"schema", func() ([]row, error) { return schemaRSS(bins, dir, s) }},
		} {
			if !want(part.name) {
				continue
			}
			r, err := part.run()
			if err != nil {
				fatal(fmt.Errorf("%s, %s: %w", s.name, part.name, err))
			}
			rows = append(rows, r...)
		}
		fmt.Printf("\n%s\n", s.name)
		failed = printTable(rows) || failed
	}
	if want("validator") {
		rows, err := validatorCost(15)
		if err != nil {
			fatal(fmt.Errorf("validator: %w", err))
		}
		fmt.Printf("\nschema validator (runtime/schema) beside santhosh-tekuri/jsonschema/v6\n")
		failed = printTable(rows) || failed
	}
	if want("validation") {
		rows, err := validation(bins, dir, *rounds, min(*batch, 100))
		if err != nil {
			fatal(fmt.Errorf("validation: %w", err))
		}
		fmt.Printf("\nvalidation never holds the host (issue 39)\n")
		failed = printTable(rows) || failed
	}
	if want("memory") {
		rows, err := memory(bins, dir)
		if err != nil {
			fatal(fmt.Errorf("memory: %w", err))
		}
		fmt.Printf("\nmemory bounds\n")
		failed = printTable(rows) || failed
	}
	fmt.Printf("\nload at the end %s\n", load())
	if failed {
		fmt.Println("some targets failed")
	}
}

// load is the first line of /proc/loadavg, the machine's recent load.
func load() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
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

func printTable(rows []row) (failed bool) {
	w := [4]int{len("measure"), len("result"), len("figures"), len("target")}
	for _, r := range rows {
		for i, s := range []string{r.what, r.host, r.baseline, r.target} {
			w[i] = max(w[i], len(s))
		}
	}
	line := func(a, b, c, d, e string) {
		fmt.Printf("| %-*s | %-*s | %-*s | %-*s | %-4s |\n", w[0], a, w[1], b, w[2], c, w[3], d, e)
	}
	line("measure", "result", "figures", "target", "")
	fmt.Printf("|%s|%s|%s|%s|------|\n", strings.Repeat("-", w[0]+2), strings.Repeat("-", w[1]+2), strings.Repeat("-", w[2]+2), strings.Repeat("-", w[3]+2))
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
	return failed
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}
