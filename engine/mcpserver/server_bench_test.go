package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentic-workspace/aw/engine/mcpserver"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// lineClient speaks newline-delimited JSON-RPC to a server on pipes, with
// as little work on the client side as possible.
type lineClient struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func (c *lineClient) send(t testing.TB, line string) string {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	for {
		resp, err := c.out.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the answer to %s: %v", line, err)
		}
		if !strings.Contains(resp, `"method"`) {
			return resp
		}
	}
}

// serve runs a server on the stdio transport over pipes and initializes a
// session.
func serve(t testing.TB, opts mcpserver.Options) *lineClient {
	return serveOn(t, opts, mcpserver.Transport)
}

// serveOn runs a server on the transport made by transport over pipes and
// initializes a session.
func serveOn(t testing.TB, opts mcpserver.Options, transport func(io.Reader, io.Writer) mcp.Transport) *lineClient {
	c := startOn(t, opts, transport)
	c.send(t, initialize)
	io.WriteString(c.in, initialized+"\n")
	return c
}

// startOn runs a server on the transport made by transport over pipes.
func startOn(t testing.TB, opts mcpserver.Options, transport func(io.Reader, io.Writer) mcp.Transport) *lineClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := mcpserver.New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Run(ctx, transport(inR, outW)); close(done) }()
	t.Cleanup(func() { inW.Close(); cancel(); outR.Close(); <-done })
	return &lineClient{in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
}

const (
	initialize  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// readWorkspace is a workspace with a config file and a 200-line file.
func readWorkspace(t testing.TB) string {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".agentic"), 0o755)
	config := filepath.Join(root, ".agentic", "config.json")
	os.WriteFile(config, []byte(`{"permissionMode": 1}`), 0o644)
	// Settings written an hour ago, as in a workspace in use.
	hour := time.Now().Add(-time.Hour)
	os.Chtimes(config, hour, hour)
	var sb strings.Builder
	for l := 1; l <= 200; l++ {
		fmt.Fprintf(&sb, "line %03d: the quick brown fox jumps over the <lazy> dog & \"friends\"\n", l)
	}
	os.WriteFile(filepath.Join(root, "lines.txt"), []byte(sb.String()), 0o644)
	return root
}

// BenchmarkCallRead is one workspace_inspect read of a 200-line file over
// the stdio transport (on pipes, in process): what the server does per
// call. scripts/bench's mcp-read row measures the same call against a peer.
// The options are those of `aw mcp --root ROOT` started in ROOT.
func BenchmarkCallRead(b *testing.B) {
	root := readWorkspace(b)
	opts := workspace.Options{Root: root, WorkingDir: root, ConfigHome: b.TempDir(), Tier: workspace.TierExec}
	c := serve(b, mcpserver.Options{Workspace: opts, Poll: -1})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"read","path":"lines.txt"}}}`
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if resp := c.send(b, call); !strings.HasPrefix(resp, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"protocol\":\"agentic-workspace/v1\",\"ok\":true`) {
			b.Fatalf("not a result: %.300s", resp)
		}
	}
}
