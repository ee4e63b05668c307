package mcpserver_test

import (
	"encoding/json"
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

// counted is Transport, kept so a test can ask how many calls it answered
// without the SDK.
func counted(tr *mcp.Transport) func(io.Reader, io.Writer) mcp.Transport {
	return func(in io.Reader, out io.Writer) mcp.Transport {
		*tr = mcpserver.Transport(in, out)
		return *tr
	}
}

// A call the transport answers itself gets the bytes the SDK writes for
// it; anything the transport is unsure of goes to the SDK, which answers
// as it always has.
func TestDirectCallIsWhatTheSDKAnswers(t *testing.T) {
	root := readWorkspace(t)
	opts := mcpserver.Options{Workspace: workspace.Options{Root: root}, Poll: -1}
	var tr mcp.Transport
	ours, sdk := serveOn(t, opts, counted(&tr)), serveOn(t, opts, mcpserver.SDKTransport)
	read := `"name":"workspace_inspect","arguments":{"action":"read","path":"lines.txt"}`
	for _, tc := range []struct {
		call   string
		direct bool
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + read + `}}`, true},
		{`{"jsonrpc":"2.0","id":"s-8","method":"tools/call","params":{` + read + `}}`, true},
		{`{"jsonrpc":"2.0","id":12.0,"method":"tools/call","params":{` + read + `}}`, true},
		{`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{` + read + `,"_meta":{"progressToken":"p1"}}}`, true},
		{`{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"_meta":{"progressToken":3},` + read + `}}`, true},
		// Tool errors are results.
		{`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"read","path":"../outside"}}}`, true},
		{`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"nope"}}}`, true},
		{`{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"workspace_inspect"}}`, true},
		{`{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{ }}}`, true},
		// The SDK's: an unknown tool, invalid params, anything unusual.
		{`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":5,"arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":"workspace_inspect","arguments":"read"}}`, false},
		{`{"jsonrpc":"2.0","id":33,"method":"tools/call"}`, false},
		{`{"jsonrpc":"2.0","id":34,"method":"tools/call","params":null}`, false},
		{`{"jsonrpc":"2.0","id":35,"method":"tools/call","params":[1]}`, false},
		{`{"jsonrpc":"2.0","id":36,"method":"tools/call","params":{"Name":"workspace_inspect","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":37,"method":"tools/call","params":{` + read + `,"requestState":"forged"}}`, false},
		{`{"jsonrpc":"2.0","id":38,"method":"tools/call","params":{` + read + `,"_meta":{"progressToken":{}}}}`, false},
		{`{"jsonrpc":"2.0","id":39,"method":"tools/call","params":{` + read + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, false},
		{`{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"read","path":"lines.txt","deep":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}}`, false},
		{`{"jsonrpc":"2.0","id":41,"method":"ping"}`, false},
		{`{"jsonrpc":"2.0","id":42,"method":"tools/list"}`, false},
	} {
		before := mcpserver.Taken(tr)
		got, want := ours.send(t, tc.call), sdk.send(t, tc.call)
		if got != want {
			t.Errorf("%.200s:\ndirect: %.400s\nSDK:    %.400s", tc.call, got, want)
		}
		if direct := mcpserver.Taken(tr) > before; direct != tc.direct {
			t.Errorf("%.200s: answered without the SDK %v, want %v", tc.call, direct, tc.direct)
		}
	}
}

// The status tool, offered when the workspace cannot be opened, is
// answered the same way.
func TestDirectStatusCall(t *testing.T) {
	opts := mcpserver.Options{Workspace: workspace.Options{Root: filepath.Join(t.TempDir(), "missing")}, Poll: -1}
	var tr mcp.Transport
	ours, sdk := serveOn(t, opts, counted(&tr)), serveOn(t, opts, mcpserver.SDKTransport)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agentic_workspace_status","arguments":{}}}`
	if got, want := ours.send(t, call), sdk.send(t, call); got != want || mcpserver.Taken(tr) != 1 {
		t.Errorf("direct (%d taken): %.400s\nSDK: %.400s", mcpserver.Taken(tr), got, want)
	}
}

// Before initialize the SDK refuses a call, and the transport leaves it
// to the SDK; after initialize (even before notifications/initialized)
// the SDK accepts calls, and so does the transport.
func TestDirectWaitsForInitialize(t *testing.T) {
	opts := mcpserver.Options{Workspace: workspace.Options{Root: readWorkspace(t)}, Poll: -1}
	var tr mcp.Transport
	ours, sdk := startOn(t, opts, counted(&tr)), startOn(t, opts, mcpserver.SDKTransport)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"read","path":"lines.txt"}}}`
	got, want := ours.send(t, call), sdk.send(t, call)
	if got != want || !strings.Contains(got, `method \"tools/call\" is invalid during session initialization`) || mcpserver.Taken(tr) != 0 {
		t.Errorf("a call before initialize (%d taken):\ndirect: %.300s\nSDK:    %.300s", mcpserver.Taken(tr), got, want)
	}
	ours.send(t, initialize)
	sdk.send(t, initialize)
	got, want = ours.send(t, call), sdk.send(t, call)
	if got != want || !strings.Contains(got, `"result":{"content"`) || mcpserver.Taken(tr) != 1 {
		t.Errorf("a call after initialize (%d taken):\ndirect: %.300s\nSDK:    %.300s", mcpserver.Taken(tr), got, want)
	}
}

// commandWorkspace runs commands: sleep, to have a call that waits.
func commandWorkspace(t *testing.T) mcpserver.Options {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(root, ".agentic", "config.json"), []byte(`{"permissionMode": 2, "commands": {"allow": ["sleep"]}}`), 0o644)
	return mcpserver.Options{Workspace: workspace.Options{Root: root, ConfigHome: t.TempDir(), Tier: workspace.TierExec}, Poll: -1}
}

// A call whose id is in flight is dropped unanswered, as the SDK drops it;
// the id can be used again once answered.
func TestDirectIDInUse(t *testing.T) {
	for name, transport := range map[string]func(io.Reader, io.Writer) mcp.Transport{"direct": mcpserver.Transport, "sdk": mcpserver.SDKTransport} {
		t.Run(name, func(t *testing.T) {
			c := serveOn(t, commandWorkspace(t), transport)
			io.WriteString(c.in, `{"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"workspace_command","arguments":{"action":"run","executable":"sleep","args":["1"]}}}`+"\n")
			time.Sleep(200 * time.Millisecond)
			io.WriteString(c.in, `{"jsonrpc":"2.0","id":50,"method":"ping"}`+"\n")
			first, err := c.out.ReadString('\n')
			if err != nil || !strings.HasPrefix(first, `{"jsonrpc":"2.0","id":50,"result":{"content"`) {
				t.Fatalf("the first call answered %.300s, %v", first, err)
			}
			if resp := c.send(t, `{"jsonrpc":"2.0","id":51,"method":"ping"}`); resp != `{"jsonrpc":"2.0","id":51,"result":{}}`+"\n" {
				t.Errorf("after the first call: %.300s", resp)
			}
			if resp := c.send(t, `{"jsonrpc":"2.0","id":50,"method":"ping"}`); resp != `{"jsonrpc":"2.0","id":50,"result":{}}`+"\n" {
				t.Errorf("the id again: %.300s", resp)
			}
		})
	}
}

// Overlapping calls are each answered once, whole, one line each.
func TestDirectOverlappingCalls(t *testing.T) {
	var tr mcp.Transport
	c := serveOn(t, mcpserver.Options{Workspace: workspace.Options{Root: readWorkspace(t)}, Poll: -1}, counted(&tr))
	const n = 32
	go func() {
		for i := range n {
			id, _ := json.Marshal(i + 100)
			io.WriteString(c.in, `{"jsonrpc":"2.0","id":`+string(id)+`,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"read","path":"lines.txt"}}}`+"\n")
		}
	}()
	seen := map[int]bool{}
	for range n {
		line, err := c.out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var resp struct {
			ID     int `json:"id"`
			Result struct {
				StructuredContent struct {
					OK bool `json:"ok"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil || !resp.Result.StructuredContent.OK || seen[resp.ID] {
			t.Fatalf("answer %.300s: %v", line, err)
		}
		seen[resp.ID] = true
	}
	if got := mcpserver.Taken(tr); got != n {
		t.Errorf("%d calls answered without the SDK, want %d", got, n)
	}
}

// An approval offered by elicitation, to a client before 2026-07-28: the
// server asks the client during the call, then answers the call with the
// decision, on either path.
func TestDirectElicitsApproval(t *testing.T) {
	refused := map[bool]*[2]string{true: {}, false: {}} // the answers when the client refuses to ask
	for name, direct := range map[string]bool{"direct": true, "sdk": false} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, ".agentic"), 0o755)
			os.WriteFile(filepath.Join(root, ".agentic", "config.json"), []byte(`{"permissionMode": 0, "mcp": {"elicitApprovals": true}}`), 0o644)
			opts := mcpserver.Options{Workspace: workspace.Options{Root: root, ConfigHome: t.TempDir(), Tier: workspace.TierExec}, Poll: -1}
			var tr mcp.Transport
			transport := counted(&tr)
			if !direct {
				transport = mcpserver.SDKTransport
			}
			c := startOn(t, opts, transport)
			c.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"test","version":"1"}}}`)
			io.WriteString(c.in, initialized+"\n")
			io.WriteString(c.in, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"workspace_edit","arguments":{"action":"apply","operations":[{"type":"create","path":"elicited.txt","content":"hi\n"}]}}}`+"\n")
			var ask struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			line, err := c.out.ReadString('\n')
			if err != nil || json.Unmarshal([]byte(line), &ask) != nil || ask.Method != "elicitation/create" || !strings.Contains(line, "elicited.txt") {
				t.Fatalf("instead of an elicitation: %.400s, %v", line, err)
			}
			io.WriteString(c.in, `{"jsonrpc":"2.0","id":`+string(ask.ID)+`,"result":{"action":"accept","content":{"decision":"accept","note":"ok"}}}`+"\n")
			line, err = c.out.ReadString('\n')
			if err != nil || !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":5,"result":{"content"`) || !strings.Contains(line, `\"status\":\"approved\"`) {
				t.Fatalf("the call answered %.600s, %v", line, err)
			}
			// The client answers the elicitation with an error; the SDK
			// rewrites one coded "method not found".
			for i, code := range []string{"-32000", "-32601"} {
				io.WriteString(c.in, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"workspace_edit","arguments":{"action":"apply","operations":[{"type":"create","path":"refused.txt","content":"hi\n"}]}}}`+"\n")
				line, err = c.out.ReadString('\n')
				if err != nil || json.Unmarshal([]byte(line), &ask) != nil || ask.Method != "elicitation/create" {
					t.Fatalf("instead of an elicitation: %.400s, %v", line, err)
				}
				io.WriteString(c.in, `{"jsonrpc":"2.0","id":`+string(ask.ID)+`,"error":{"code":`+code+`,"message":"no forms here"}}`+"\n")
				if refused[direct][i], err = c.out.ReadString('\n'); err != nil {
					t.Fatal(err)
				}
			}
			if direct && mcpserver.Taken(tr) != 3 {
				t.Errorf("%d calls answered without the SDK, want 3", mcpserver.Taken(tr))
			}
		})
	}
	if *refused[true] != *refused[false] || !strings.Contains(refused[true][0], `"code":-32000,"message":"multi-round-trip: fulfilling input request \"approval\": calling \"elicitation/create\": no forms here"`) {
		t.Errorf("a refused elicitation:\ndirect: %.400q\nSDK:    %.400q", refused[true], refused[false])
	}
}

// A call read just before stdin closes is answered before the session
// ends.
func TestDirectCallAnsweredAfterStdinCloses(t *testing.T) {
	var tr mcp.Transport
	c := serveOn(t, mcpserver.Options{Workspace: workspace.Options{Root: readWorkspace(t)}, Poll: -1}, counted(&tr))
	io.WriteString(c.in, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"read","path":"lines.txt"}}}`+"\n")
	c.in.Close()
	line, err := c.out.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":9,"result":{"content"`) || mcpserver.Taken(tr) != 1 {
		t.Fatalf("after stdin closed (%d taken): %.300s, %v", mcpserver.Taken(tr), line, err)
	}
}
