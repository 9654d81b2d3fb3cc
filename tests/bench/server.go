package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
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
// Its large result is gzip-file-as-resource of 12 MiB of random bytes served
// on the loopback interface, returned inline: random bytes do not compress,
// so the result's base64 blob is 16 MiB. (An echo cannot be used: the Node
// SDK refuses messages over 10 MiB, so the request could not carry 16 MiB.)
func everythingServer() (s server, ok bool, err error) {
	script, err := filepath.Abs("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		return s, false, nil
	}
	if _, err := os.Stat(script); err != nil {
		return s, false, nil
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return s, false, nil
	}
	const raw = bigBytes / 4 * 3
	url, err := serveRandom(raw)
	if err != nil {
		return s, false, err
	}
	return server{
		name:    "server-everything (Node)",
		command: node, args: []string{script, "stdio"},
		env:  []string{"GZIP_MAX_FETCH_SIZE=" + strconv.Itoa(2*raw)},
		echo: "echo", echoArgs: map[string]any{"message": "hello"},
		big: "gzip-file-as-resource", bigArgs: map[string]any{"name": "random.gz", "data": url, "outputType": "resource"},
		bigCheck: func(res *mcp.CallToolResult) error {
			r, ok := res.Content[0].(mcp.EmbeddedResource)
			if !ok {
				return fmt.Errorf("gzip-file-as-resource returned %T", res.Content[0])
			}
			if b, ok := r.Resource.(mcp.BlobResourceContents); !ok || len(b.Blob) < bigBytes {
				return fmt.Errorf("gzip-file-as-resource returned less than 16 MiB")
			}
			return nil
		},
	}, true, nil
}

// serveRandom serves n random bytes over HTTP on the loopback interface
// for the life of the process, and returns their URL.
func serveRandom(n int) (string, error) {
	body := make([]byte, n)
	rand.NewChaCha8([32]byte{}).Read(body)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(body) }))
	return "http://" + l.Addr().String() + "/random.bin", nil
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

// callDirect runs one tool through the direct client; a tool error is an error.
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
