package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strconv"
)

// rawClient speaks JSON-RPC lines to fakemunim with no decoding beyond
// finding the reply's id: the floor any MCP client pays (the server's work
// plus the pipe), to attribute the host's share of a large transfer.
type rawClient struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int
}

func startRaw(b binaries) (*rawClient, error) {
	cmd := exec.Command(b.fake)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &rawClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := c.call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"gnosis-bench","version":"1"}}`); err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	return c, nil
}

// call sends a request and returns the raw reply line.
func (c *rawClient) call(method, params string) ([]byte, error) {
	c.next++
	if _, err := fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", c.next, method, params); err != nil {
		return nil, err
	}
	want := []byte(`"id":` + strconv.Itoa(c.next) + `,`)
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		// mcp-go writes "id" right after "jsonrpc"; a notification has none.
		// Not validated as JSON: the floor must not include a decoder's pass.
		if bytes.Contains(line[:min(len(line), 64)], want) {
			if !bytes.HasSuffix(line, []byte("}\n")) {
				return nil, fmt.Errorf("truncated reply line")
			}
			return line, nil
		}
	}
}

func (c *rawClient) close() {
	c.in.Close()
	c.cmd.Wait()
}
