package mcpserver_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentic-workspace/aw/engine/mcpserver"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// serveSDK runs a server on the SDK's own stdio transport (no precoded
// results) over pipes.
func serveSDK(t testing.TB, opts mcpserver.Options) *lineClient {
	return serveOn(t, opts, func(in io.Reader, out io.Writer) mcp.Transport {
		return &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// A result the server encodes itself is byte for byte what the SDK writes
// for the same call, whatever the file holds: markup the encoder escapes,
// quotes, line separators, invalid UTF-8, and text shaped like the
// placeholders the stand-in results use.
func TestPrecodedResultIsWhatTheSDKWrites(t *testing.T) {
	root := readWorkspace(t)
	hostile := "<b>&amp;</b> \"q\" \\ \u2028 \u2029 \xff\xfe \"aw-precoded-AAAA-0t\" aw-precoded-\n"
	os.WriteFile(filepath.Join(root, "hostile.txt"), []byte(strings.Repeat(hostile, 20)), 0o644)
	opts := mcpserver.Options{Workspace: workspace.Options{Root: root}, Poll: -1}
	ours, sdk := serve(t, opts), serveSDK(t, opts)
	calls := []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"read","path":"lines.txt"}}}`,
		`{"jsonrpc":"2.0","id":"s-8","method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"read","path":"hostile.txt"}}}`,
		// Refusals are results too.
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"read","path":"../outside"}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"nope"}}}`,
		// Not a tool result: the SDK's own encoding.
		`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":12,"method":"ping"}`,
	}
	for _, call := range calls {
		got, want := ours.send(t, call), sdk.send(t, call)
		if got != want {
			t.Errorf("%s:\nprecoded: %.400s\nSDK:      %.400s", call, got, want)
		}
		if strings.Contains(got, "aw-precoded-") && !strings.Contains(call, "hostile") {
			t.Errorf("a placeholder reached the client: %.400s", got)
		}
	}
	// The structured content and the text are the same envelope.
	var resp struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(ours.send(t, calls[1])), &resp); err != nil {
		t.Fatal(err)
	}
	var text, structured map[string]any
	json.Unmarshal([]byte(resp.Result.Content[0].Text), &text)
	json.Unmarshal(resp.Result.StructuredContent, &structured)
	data, _ := structured["data"].(map[string]any)
	if content, _ := data["content"].(string); !strings.Contains(content, `"aw-precoded-AAAA-0t"`) || text["summary"] != structured["summary"] {
		t.Errorf("the spliced result does not carry the file: %.300s", resp.Result.StructuredContent)
	}
}

// A line over the 16 MiB a message may have is answered with an error and
// dropped whole; the session reads the next line.
func TestOverlongLineAnswered(t *testing.T) {
	c := serve(t, mcpserver.Options{Workspace: workspace.Options{Root: readWorkspace(t)}, Poll: -1})
	long := `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"pad":"` + strings.Repeat("x", 17<<20) + `"}}`
	if resp := c.send(t, long); !strings.Contains(resp, `"code":-32600`) || !strings.Contains(resp, "at most 16 MiB") || !strings.Contains(resp, `"id":null`) {
		t.Fatalf("an overlong line got %.300s", resp)
	}
	if resp := c.send(t, `{"jsonrpc":"2.0","id":6,"method":"ping"}`); !strings.Contains(resp, `"id":6,"result":{}`) {
		t.Fatalf("the session did not go on: %.300s", resp)
	}
}
