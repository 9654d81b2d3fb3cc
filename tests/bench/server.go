package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// server is one MCP server the host is measured against: how to spawn it,
// which of its tools is the cheap call and which returns 16 MiB.
type server struct {
	name    string   // as printed
	command string   // program to spawn
	args    []string // its arguments
	env     []string // extra environment, NAME=value
	// echo is a cheap tool and its arguments, for the per-call latency.
	echo     string
	echoArgs map[string]any
	// big is a tool returning a result of about 16 MiB, its arguments, and a
	// check of the direct client's result.
	big      string
	bigArgs  map[string]any
	bigCheck func(*mcp.CallToolResult) error
}

// bigBytes is the size of the large result.
const bigBytes = 16 << 20

// fakeServer is tests/fakemunim with extra trivial tools.
func fakeServer(b binaries, extraTools int) server {
	img := bigBytes / 4 * 3 // base64 makes it 16 MiB
	return server{
		name:    fmt.Sprintf("fakemunim (mcp-go, +%d tools)", extraTools),
		command: b.fake,
		env:     []string{"FAKEMUNIM_TOOLS=" + strconv.Itoa(extraTools)},
		echo:    "echo", echoArgs: map[string]any{"text": "hello", "n": 1},
		big: "screenshot", bigArgs: map[string]any{"bytes": img},
		bigCheck: func(res *mcp.CallToolResult) error {
			if im, ok := res.Content[0].(mcp.ImageContent); !ok || base64.StdEncoding.DecodedLen(len(im.Data)) < img {
				return fmt.Errorf("direct screenshot too small")
			}
			return nil
		},
	}
}

// everythingServer is the real Node server @modelcontextprotocol/server-everything
// from the repository's node_modules; ok is false when it or node is missing.
// Its large result is an echo of a 16 MiB message (the request is as large:
// both sides send it).
func everythingServer() (s server, ok bool) {
	script, err := filepath.Abs("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		return s, false
	}
	if _, err := os.Stat(script); err != nil {
		return s, false
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return s, false
	}
	msg := strings.Repeat("a", bigBytes-len("Echo: "))
	return server{
		name:    "server-everything (Node)",
		command: node, args: []string{script, "stdio"},
		echo: "echo", echoArgs: map[string]any{"message": "hello"},
		big: "echo", bigArgs: map[string]any{"message": msg},
		bigCheck: func(res *mcp.CallToolResult) error {
			if t, ok := res.Content[0].(mcp.TextContent); !ok || len(t.Text) != bigBytes {
				return fmt.Errorf("direct echo of 16 MiB came back short")
			}
			return nil
		},
	}, true
}

// dial spawns s under a plain mcp-go client, the way the host's provider
// does (legacy handshake pinned), and lists its tools: the server's own
// spawn, initialize and tools/list.
func (s server) dial() (*client.Client, int, error) {
	ctx := context.Background()
	tr := transport.NewStdio(s.command, s.env, s.args...)
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err := c.Start(ctx); err != nil {
		return nil, 0, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "gnosis-bench", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, 0, err
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		c.Close()
		return nil, 0, err
	}
	return c, len(tools.Tools), nil
}

// call runs one tool through the direct client.
func callDirect(c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err == nil && res.IsError {
		err = fmt.Errorf("tool error")
	}
	return res, err
}

// provider is s as an entry of the host's config.
func (s server) provider() map[string]any {
	env := map[string]string{}
	for _, kv := range s.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	p := map[string]any{"name": "bench", "command": s.command, "prefix": "bench", "timeout": "60s"}
	if len(s.args) > 0 {
		p["args"] = s.args
	}
	if len(env) > 0 {
		p["env"] = env
	}
	return p
}
