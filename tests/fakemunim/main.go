// Command fakemunim is a stand-in for Munim, the Windows computer-use MCP
// server, used by Gnosis's integration tests and benchmark. It speaks MCP over
// stdio with mark3labs/mcp-go's server package and offers computer-use-like
// tools whose input schemas are raw JSON (schemas/*.json), so every keyword
// ($schema, $defs, definitions, oneOf, enums, bounds) reaches the client as a
// real server would send it. Besides the computer tools it has tools that
// misbehave on purpose: slow (honours cancellation), crash (exits mid-call),
// noisy (floods stderr), fail (isError result), add_tool (tools/list_changed),
// and tools for MCP's finer points (fidelity.go): progress (sends
// notifications/progress), weather (declares an outputSchema), research
// (requires task augmentation).
//
// It is pure Go so it also builds for windows/amd64.
//
// Flags (each also settable by environment, flag wins):
//
//	--tools N        FAKEMUNIM_TOOLS       add N extra trivial tools extra_000... (cold-start benchmark)
//	--page-size N    FAKEMUNIM_PAGE_SIZE   paginate tools/list N tools per page (0: no pagination)
//	--workers N      FAKEMUNIM_WORKERS     concurrent tool calls (default 32)
//	--log FILE       FAKEMUNIM_LOG         append one JSON line per call: {"tool","arguments","cancelled"?}
//	--state DIR      FAKEMUNIM_STATE       directory for state kept across restarts (crash's delay_next_start_ms)
//	                                       and for slow's "<tag>.started" markers
//	--remote-ref URL FAKEMUNIM_REMOTE_REF  add a tool remote_ref whose schema $refs URL (a client must not fetch it)
//	--names JSON     FAKEMUNIM_NAMES       add trivial tools with these names (a JSON array), to test name rules
//	--forecast       FAKEMUNIM_FORECAST=1  add forecast, with an outputSchema and a ~8 KB structured result (schemacases.go)
//	--bad-schemas    FAKEMUNIM_BAD_SCHEMAS=1 add huge_schema (10 MB, 200,000 patterns) and cyclic_schema (a $ref cycle)
//	--grandchild     FAKEMUNIM_GRANDCHILD=1 start an idle child process, so the server is a process tree
//	--faults         FAKEMUNIM_FAULTS=1     add stop_reading and huge_line, which break the host's bounds (faults.go)
//	--schemas FILE   FAKEMUNIM_SCHEMAS      add the tools a JSON file describes by name: {"inputSchema", "outputSchema"?, "structuredContent"?} (schemacases.go)
//	--idle                                 just sleep until killed (the grandchild)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gnosis/gnosis/internal/stopreading"
)

func main() {
	tools := flag.Int("tools", envInt("FAKEMUNIM_TOOLS", 0), "number of extra trivial tools")
	pageSize := flag.Int("page-size", envInt("FAKEMUNIM_PAGE_SIZE", 0), "tools per tools/list page (0: all)")
	workers := flag.Int("workers", envInt("FAKEMUNIM_WORKERS", 32), "concurrent tool calls")
	logPath := flag.String("log", os.Getenv("FAKEMUNIM_LOG"), "append a JSON line per call to this file")
	stateDir := flag.String("state", os.Getenv("FAKEMUNIM_STATE"), "directory for state kept across restarts")
	grandchild := flag.Bool("grandchild", os.Getenv("FAKEMUNIM_GRANDCHILD") == "1", "start an idle child process")
	idle := flag.Bool("idle", false, "sleep until killed")
	remoteRef := flag.String("remote-ref", os.Getenv("FAKEMUNIM_REMOTE_REF"), "add a tool whose schema refers to this URL")
	names := flag.String("names", os.Getenv("FAKEMUNIM_NAMES"), "add trivial tools with these names (a JSON array)")
	withForecast := flag.Bool("forecast", os.Getenv("FAKEMUNIM_FORECAST") == "1", "add the forecast tool")
	badSchemas := flag.Bool("bad-schemas", os.Getenv("FAKEMUNIM_BAD_SCHEMAS") == "1", "add tools whose input schemas cannot be used")
	faults := flag.Bool("faults", os.Getenv("FAKEMUNIM_FAULTS") == "1", "add the tools that break the host's bounds")
	schemas := flag.String("schemas", os.Getenv("FAKEMUNIM_SCHEMAS"), "add the tools this JSON file describes")
	flag.Parse()

	if *idle {
		select {}
	}
	if *grandchild {
		// The idle child inherits the environment, so tests can find it
		// (and prove it was stopped) by a marker variable.
		c := exec.Command(os.Args[0], "--idle")
		if err := c.Start(); err != nil {
			fmt.Fprintf(os.Stderr, "fakemunim: start grandchild: %v\n", err)
		}
	}

	if err := delayStart(*stateDir); err != nil {
		fmt.Fprintf(os.Stderr, "fakemunim: %v\n", err)
	}

	opts := []server.ServerOption{server.WithToolCapabilities(true)}
	if *pageSize > 0 {
		opts = append(opts, server.WithPaginationLimit(*pageSize))
	}
	s := server.NewMCPServer("fakemunim", "1.0.0", opts...)
	f := &fake{server: s, log: newCallLog(*logPath), stateDir: *stateDir}
	f.register(*tools)
	f.registerFidelity()
	if *remoteRef != "" {
		f.addRemoteRef(*remoteRef)
	}
	stdin := stopreading.New(os.Stdin)
	if *faults {
		f.registerFaults(stdin)
	}
	if *withForecast {
		f.addForecast()
	}
	if *badSchemas {
		f.addBadSchemas()
	}
	if *schemas != "" {
		if err := f.addSchemaTools(*schemas); err != nil {
			fmt.Fprintf(os.Stderr, "fakemunim: --schemas: %v\n", err)
			os.Exit(2)
		}
	}
	if *names != "" {
		if err := f.addNamed(*names); err != nil {
			fmt.Fprintf(os.Stderr, "fakemunim: --names: %v\n", err)
			os.Exit(2)
		}
	}

	stdio := server.NewStdioServer(s)
	server.WithWorkerPoolSize(*workers)(stdio)
	if err := stdio.Listen(context.Background(), stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "fakemunim: %v\n", err)
		os.Exit(1)
	}
}

// delayStart sleeps as long as a previous crash asked the next start to wait,
// then forgets the request, so the restart window is long and deterministic.
func delayStart(stateDir string) error {
	if stateDir == "" {
		return nil
	}
	path := stateDir + string(os.PathSeparator) + "next-start-delay-ms"
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read start delay: %w", err)
	}
	os.Remove(path)
	ms, err := strconv.Atoi(string(b))
	if err != nil {
		return fmt.Errorf("parse start delay %q: %w", b, err)
	}
	fmt.Fprintf(os.Stderr, "fakemunim: delaying start by %d ms\n", ms)
	time.Sleep(time.Duration(ms) * time.Millisecond)
	return nil
}

func envInt(name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakemunim: ignoring %s=%q: %v\n", name, v, err)
		return def
	}
	return n
}
