package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// The MCP tests drive `aw mcp` as a subprocess with the official Go SDK's
// client, as an agent's harness would.

// mcpWorkspace makes a workspace with a file and the given settings.
func mcpWorkspace(t testing.TB, settings string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755); err != nil {
		t.Fatal(err)
	}
	if settings != "" {
		writeSettings(t, dir, settings)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# demo\nline two\nline three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeSettings(t testing.TB, dir, settings string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
}

type mcpClient struct {
	cs      *mcp.ClientSession
	cmd     *exec.Cmd
	changed chan struct{}
}

type clientOpts struct {
	protocol string
	elicit   func(*mcp.ElicitParams) *mcp.ElicitResult
	args     []string
	env      []string
}

// startMCP runs `aw mcp --root dir` and connects the SDK client to it.
func startMCP(t testing.TB, dir string, o clientOpts) *mcpClient {
	t.Helper()
	cmd := exec.Command(awBin, append([]string{"mcp", "--root", dir}, o.args...)...)
	cmd.Dir = dir
	// GH_TOKEN is cleared so a GitHub action called here never reaches the network.
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir+"-userconfig", "AW_ROOT=", "AW_APPROVER_TOKEN=", "GH_TOKEN=")
	cmd.Env = append(cmd.Env, o.env...)
	cmd.Stderr = os.Stderr
	c := &mcpClient{cmd: cmd, changed: make(chan struct{}, 16)}
	opts := &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case c.changed <- struct{}{}:
			default:
			}
		},
	}
	if o.elicit != nil {
		opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return o.elicit(req.Params), nil
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "aw-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: o.protocol})
	if err != nil {
		t.Fatalf("connecting to aw mcp: %v", err)
	}
	c.cs = cs
	t.Cleanup(func() { cs.Close() })
	return c
}

func (c *mcpClient) tools(t testing.TB) map[string]*mcp.Tool {
	t.Helper()
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

// call runs a tool and returns the envelope, checking that the text
// content and the structured content are the same envelope and that
// isError says whether ok is false.
func (c *mcpClient) call(t testing.TB, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", tool, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("tools/call %s: %d content items, want 1", tool, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("tools/call %s: content is %T, want text", tool, res.Content[0])
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(text.Text), &env); err != nil {
		t.Fatalf("tools/call %s: text is not an envelope: %v\n%s", tool, err, text.Text)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	var senv map[string]any
	json.Unmarshal(structured, &senv)
	if fmt.Sprint(senv) != fmt.Sprint(env) {
		t.Errorf("tools/call %s: structured content differs from the text:\n%s\n%s", tool, structured, text.Text)
	}
	if env["protocol"] != "agentic-workspace/v1" {
		t.Errorf("tools/call %s: protocol %v", tool, env["protocol"])
	}
	if okv, _ := env["ok"].(bool); okv == res.IsError {
		t.Errorf("tools/call %s: ok=%v but isError=%v: %s", tool, env["ok"], res.IsError, text.Text)
	}
	return env
}

func actionEnum(t testing.TB, tool *mcp.Tool) []string {
	t.Helper()
	schema, _ := tool.InputSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	action, _ := props["action"].(map[string]any)
	var out []string
	for _, v := range action["enum"].([]any) {
		out = append(out, v.(string))
	}
	return out
}

func get(v any, path string) any {
	got, _ := lookup(v, path)
	return got
}

func TestMCPInitializeAndList(t *testing.T) {
	for _, protocol := range []string{"2025-06-18", "2025-11-25", ""} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			dir := mcpWorkspace(t, "")
			c := startMCP(t, dir, clientOpts{protocol: protocol})
			init := c.cs.InitializeResult()
			if init.ServerInfo.Name != "aw" || init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
				t.Fatalf("initialize: server %+v, tools capability %+v", init.ServerInfo, init.Capabilities.Tools)
			}
			tools := c.tools(t)
			var names []string
			for n := range tools {
				names = append(names, n)
			}
			slices.Sort(names)
			// Plan mode (the default): inspect, edit, notes always; plan
			// because the mode is not Auto; the rest by their settings.
			for _, want := range []string{"workspace_edit", "workspace_inspect", "workspace_notes", "workspace_plan"} {
				if tools[want] == nil {
					t.Errorf("tools/list lacks %s: %v", want, names)
				}
			}
			for _, n := range names {
				if !strings.HasPrefix(n, "workspace_") {
					t.Errorf("tool %s is not a seed tool", n)
				}
			}
			ws, err := workspace.Open(workspace.Options{Root: dir, Tier: workspace.TierExec})
			if err != nil {
				t.Fatal(err)
			}
			reg := dispatch.Registered(ws)
			if len(reg) != len(tools) {
				t.Errorf("tools/list has %d tools, the dispatch table registers %d", len(tools), len(reg))
			}
			for _, info := range reg {
				tool := tools[info.Name]
				if tool == nil {
					t.Errorf("%s is registered by the table but not listed", info.Name)
					continue
				}
				if got := actionEnum(t, tool); !slices.Equal(got, info.Actions) {
					t.Errorf("%s action enum %v, table %v", info.Name, got, info.Actions)
				}
			}
			in := tools["workspace_inspect"].Annotations
			if in == nil || !in.ReadOnlyHint || !in.IdempotentHint || in.DestructiveHint == nil || *in.DestructiveHint {
				t.Errorf("workspace_inspect annotations %+v: want read-only, idempotent, not destructive", in)
			}
			ed := tools["workspace_edit"].Annotations
			if ed == nil || ed.ReadOnlyHint || ed.DestructiveHint == nil || !*ed.DestructiveHint {
				t.Errorf("workspace_edit annotations %+v: want destructive, not read-only", ed)
			}
			// Tools that write aw's records are not read-only.
			for _, name := range []string{"workspace_notes", "workspace_plan", "workspace_tasks"} {
				if a := tools[name].Annotations; a == nil || a.ReadOnlyHint {
					t.Errorf("%s annotations %+v: it writes records, so it is not read-only", name, a)
				}
			}
			for _, tool := range tools {
				if !strings.Contains(tool.Description, "Actions (required arguments in parentheses):") {
					t.Errorf("%s description does not list its actions: %q", tool.Name, tool.Description)
				}
			}
			env := c.call(t, "workspace_inspect", map[string]any{"action": "read", "path": "README.md"})
			if get(env, ".data.totalLines") != float64(3) || get(env, ".operation") != "inspect.read" {
				t.Errorf("read: %v", env)
			}
		})
	}
}

// exampleArgs are arguments that make each action do something real in
// mcpWorkspace; an action without an entry is called with {} (and must
// still answer with an envelope naming it).
var exampleArgs = map[string]map[string]any{
	"inspect.overview":        {"depth": 1},
	"inspect.list":            {"path": "."},
	"inspect.read":            {"path": "README.md", "start_line": 2, "limit": 1},
	"inspect.search":          {"pattern": "line", "fixed": true},
	"inspect.find":            {"pattern": "*.md"},
	"inspect.stat":            {"path": "README.md"},
	"inspect.semantic_search": {"query": "demo"},
	"edit.preview":            {"operations": []any{map[string]any{"type": "create", "path": "new.txt", "content": "new\n"}}},
	"edit.apply":              {"operations": []any{map[string]any{"type": "create", "path": "applied.txt", "content": "x\n"}}},
	"edit.commit":             {"transaction_id": "tx_missing"},
	"edit.rollback":           {"transaction_id": "tx_missing"},
	"edit.show":               {"transaction_id": "tx_missing"},
	"notes.write":             {"name": "todo", "content": "first"},
	"notes.append":            {"name": "todo", "content": "second"},
	"notes.read":              {"name": "todo"},
	"notes.delete":            {"name": "todo"},
	"plan.propose":            {"title": "Demo", "objective": "Show a plan", "steps": []any{"read", map[string]any{"text": "edit", "kind": "edit"}}},
	"plan.show":               {"plan_id": "plan_missing"},
	"tasks.todo_write":        {"todos": []any{map[string]any{"content": "read the parser"}}},
	"ast.grep":                {"pattern": "f($X)"},
	"ast.edit":                {"pattern": "f($X)", "rewrite": "g($X)"},
	"ast.resolve":             {"edit_id": "tx_missing", "decision": "accept"},
}

// everyActionWant is what each action answers in TestMCPCallsEveryAction
// (Plan mode, no plan accepted, not a git repository, no GitHub token):
// ok with a data key, or an error code with words of its message.
var everyActionWant = map[string]struct{ code, key string }{
	"inspect.capabilities":    {"", "permissionMode"},
	"inspect.overview":        {"", "tree"},
	"inspect.list":            {"", "entries"},
	"inspect.read":            {"", "content"},
	"inspect.search":          {"", "matches"},
	"inspect.find":            {"", "paths"},
	"inspect.stat":            {"", "sha256"},
	"inspect.changes":         {"", "transactions"},
	"inspect.semantic_search": {"", "results"},
	"inspect.index_status":    {"", "exists"},
	"inspect.index_rebuild":   {"", "update"},
	"edit.preview":            {"", "transactionId"},
	"edit.apply":              {"APPROVAL_REQUIRED", "Plan mode"},
	"edit.commit":             {"NOT_FOUND", `"tx_missing" is not a transaction id`},
	"edit.rollback":           {"NOT_FOUND", `"tx_missing" is not a transaction id`},
	"edit.show":               {"NOT_FOUND", `"tx_missing" is not a transaction id`},
	"edit.list":               {"", "transactions"},
	"notes.write":             {"", "path"},
	"notes.append":            {"", "path"},
	"notes.read":              {"", "content"},
	"notes.list":              {"", "notes"},
	"notes.delete":            {"", "path"},
	"plan.propose":            {"", "planId"},
	"plan.current":            {"", "planId"},
	"plan.show":               {"NOT_FOUND", "no plan plan_missing"},
	"plan.list":               {"", "plans"},
	"plan.complete":           {"TRANSACTION_STATE", "has not been accepted by the user"},
	"command.run":             {"INVALID_INPUT", "nothing to run"},
	"command.start":           {"INVALID_INPUT", "nothing to run"},
	"command.status":          {"NOT_FOUND", "is not a job id"},
	"command.output":          {"NOT_FOUND", "is not a job id"},
	"command.wait":            {"NOT_FOUND", "is not a job id"},
	"command.cancel":          {"INVALID_INPUT", "cancel needs a job id"},
	"command.list":            {"", "jobs"},
	"command.undo":            {"NOT_FOUND", "is not a job id"},
	"command.diff":            {"NOT_FOUND", "is not a job id"},
	"command.test":            {"TOOL_DISABLED", "there is no test command"},
	"tasks.create":            {"INVALID_INPUT", "title is required"},
	"tasks.list":              {"", "boards"},
	"tasks.show":              {"INVALID_INPUT", "board_id is required"},
	"tasks.add":               {"INVALID_INPUT", "at least one item"},
	"tasks.update":            {"INVALID_INPUT", "item_id is required"},
	"tasks.remove":            {"INVALID_INPUT", "item_id is required"},
	"tasks.note":              {"INVALID_INPUT", "text is required"},
	"tasks.checkpoint":        {"INVALID_INPUT", "board_id is required"},
	"tasks.next":              {"INVALID_INPUT", "board_id is required"},
	"tasks.archive":           {"INVALID_INPUT", "board_id is required"},
	"tasks.reopen":            {"INVALID_INPUT", "board_id is required"},
	"tasks.todo_write":        {"", "todos"},
	"tasks.todo_read":         {"", "todos"},
	"vcs.status":              {"VCS_ERROR", "is not inside a git repository"},
	"vcs.diff":                {"VCS_ERROR", "is not inside a git repository"},
	"vcs.log":                 {"VCS_ERROR", "is not inside a git repository"},
	"vcs.show":                {"VCS_ERROR", "is not inside a git repository"},
	"vcs.branch":              {"VCS_ERROR", "is not inside a git repository"},
	"vcs.push":                {"VCS_ERROR", "is not inside a git repository"},
	"vcs.add":                 {"INVALID_INPUT", "at least one path"},
	"vcs.commit":              {"INVALID_INPUT", "commit needs a message"},
	"vcs.checkout":            {"INVALID_INPUT", "checkout needs a branch or commit"},
	"vcs.init":                {"APPROVAL_REQUIRED", "Plan mode"},
	"vcs.gh_auth":             {"INVALID_INPUT", "no GitHub token"},
	"vcs.issue_list":          {"INVALID_INPUT", "no repo given"},
	"vcs.issue_create":        {"INVALID_INPUT", "title is required"},
	"vcs.pr_list":             {"INVALID_INPUT", "no repo given"},
	"vcs.pr_create":           {"INVALID_INPUT", "title is required"},
	"vcs.pr_diff":             {"INVALID_INPUT", "number is required"},
	"agent.run":               {"INVALID_INPUT", "objective is required"},
	"agent.start":             {"INVALID_INPUT", "objective is required"},
	"agent.status":            {"INVALID_INPUT", "is not a run id"},
	"agent.history":           {"INVALID_INPUT", "is not a run id"},
	"agent.list":              {"", "runs"},
	"agent.cancel":            {"INVALID_INPUT", "is not a run id"},
	"agent.send":              {"INVALID_INPUT", "message is required"},
	"agent.wait":              {"INVALID_INPUT", "is not a run id"},
	"ast.grep":                {"", "matches"},
	"ast.edit":                {"", "editId"},
	"ast.resolve":             {"NOT_FOUND", `"tx_missing" is not a transaction id`},
	"lsp.definition":          {"INVALID_INPUT", "file is required"},
	"lsp.type_definition":     {"INVALID_INPUT", "file is required"},
	"lsp.implementation":      {"INVALID_INPUT", "file is required"},
	"lsp.references":          {"INVALID_INPUT", "file is required"},
	"lsp.hover":               {"INVALID_INPUT", "file is required"},
	"lsp.code_actions":        {"INVALID_INPUT", "file is required"},
	"lsp.symbols":             {"INVALID_INPUT", "a query (a workspace search) or a file"},
	"lsp.diagnostics":         {"INVALID_INPUT", "takes a file"},
	"lsp.status":              {"", "servers"},
	"lsp.reload":              {"", "stopped"},
	"lsp.rename":              {"INVALID_INPUT", "new_name is required"},
	"debug.adapters":          {"", "adapters"},
	"debug.status":            {"", "breakpoints"},
	"debug.breakpoints":       {"INVALID_INPUT", "name the source file"},
	"debug.launch":            {"INVALID_INPUT", "name the program to debug"},
	"debug.attach":            {"INVALID_INPUT", "port is 1 to 65535"},
	"debug.continue":          {"TRANSACTION_STATE", "no debug session"},
	"debug.pause":             {"TRANSACTION_STATE", "no debug session"},
	"debug.step_over":         {"TRANSACTION_STATE", "no debug session"},
	"debug.step_in":           {"TRANSACTION_STATE", "no debug session"},
	"debug.step_out":          {"TRANSACTION_STATE", "no debug session"},
	"debug.threads":           {"TRANSACTION_STATE", "no debug session"},
	"debug.stack":             {"TRANSACTION_STATE", "no debug session"},
	"debug.scopes":            {"TRANSACTION_STATE", "no debug session"},
	"debug.variables":         {"INVALID_INPUT", "reference is a positive number"},
	"debug.evaluate":          {"INVALID_INPUT", "give an expression"},
	"debug.output":            {"TRANSACTION_STATE", "no debug session"},
	"debug.terminate":         {"TRANSACTION_STATE", "no debug session"},
	"eval.run":                {"INVALID_INPUT", "description is required"},
}

func TestMCPCallsEveryAction(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 1, "agents": {"enabled": true}}`)
	c := startMCP(t, dir, clientOpts{})
	tools := c.tools(t)
	calls := 0
	for _, name := range []string{"workspace_inspect", "workspace_edit", "workspace_notes", "workspace_plan", "workspace_agent"} {
		if tools[name] == nil {
			t.Fatalf("%s not listed", name)
		}
	}
	for name, tool := range tools {
		for _, action := range actionEnum(t, tool) {
			op := strings.TrimPrefix(name, "workspace_") + "." + action
			args := map[string]any{"action": action}
			for k, v := range exampleArgs[op] {
				args[k] = v
			}
			env := c.call(t, name, args)
			calls++
			if env["operation"] != op {
				t.Errorf("%s: operation %v, want %s", op, env["operation"], op)
			}
			w, ok := everyActionWant[op]
			if !ok {
				t.Errorf("%s: no expected envelope in everyActionWant", op)
				continue
			}
			if w.code == "" {
				if env["ok"] != true || get(env, ".data."+w.key) == nil {
					t.Errorf("%s %v: want ok with data.%s, got %v", op, args, w.key, env)
				}
			} else if get(env, ".error.code") != w.code || !strings.Contains(fmt.Sprint(get(env, ".error.message")), w.key) {
				t.Errorf("%s %v: want %s saying %q, got %v", op, args, w.code, w.key, env["error"])
			}
		}
	}
	t.Logf("%d tools/call, one per action offered", calls)
	// Wrong argument types and unknown arguments are INVALID_INPUT envelopes.
	env := c.call(t, "workspace_inspect", map[string]any{"action": "read", "path": 5})
	if get(env, ".error.code") != "INVALID_INPUT" {
		t.Errorf("path: 5 gave %v", env)
	}
	env = c.call(t, "workspace_inspect", map[string]any{"action": "read", "path": "README.md", "bogus": true})
	if get(env, ".error.code") != "INVALID_INPUT" || !strings.Contains(fmt.Sprint(get(env, ".error.message")), "bogus") {
		t.Errorf("unknown field gave %v", env)
	}
	env = c.call(t, "workspace_inspect", map[string]any{"action": "nope"})
	if get(env, ".error.code") != "INVALID_INPUT" {
		t.Errorf("unknown action gave %v", env)
	}
	env = c.call(t, "workspace_inspect", map[string]any{})
	if get(env, ".error.code") != "INVALID_INPUT" {
		t.Errorf("no action gave %v", env)
	}
}

func TestMCPTierCap(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 2}`)
	for _, tier := range []workspace.Tier{workspace.TierRead, workspace.TierWrite} {
		t.Run(tier.String(), func(t *testing.T) {
			c := startMCP(t, dir, clientOpts{args: []string{"--tier", tier.String()}})
			tools := c.tools(t)
			if tools["workspace_plan"] != nil {
				t.Errorf("workspace_plan is listed in Auto mode")
			}
			// Every row above the cap is absent from the schema; a tool
			// with no action left is absent entirely.
			offered := map[string]int{}
			for _, row := range dispatch.Table() {
				if row.Tool.Name == "" || (row.Tool.Enabled != nil && !enabled(row)) || row.Tool.Name == "workspace_plan" {
					continue
				}
				tool := tools[row.Tool.Name]
				in := tool != nil && slices.Contains(actionEnum(t, tool), row.Name)
				if row.Tier > tier && in {
					t.Errorf("%s (tier %s) is offered at --tier %s", row.Operation(), row.Tier, tier)
				}
				if row.Tier <= tier {
					if !in {
						t.Errorf("%s (tier %s) is missing at --tier %s", row.Operation(), row.Tier, tier)
					}
					offered[row.Tool.Name]++
				}
			}
			for name := range tools {
				if offered[name] == 0 {
					t.Errorf("%s is listed with no action within --tier %s", name, tier)
				}
			}
			if tier == workspace.TierRead {
				if got := actionEnum(t, tools["workspace_edit"]); slices.Contains(got, "apply") || !slices.Contains(got, "preview") {
					t.Errorf("workspace_edit at --tier read offers %v", got)
				}
				// preview records a planned transaction, so the capped tool
				// still writes, but nothing it offers can destroy.
				if a := tools["workspace_edit"].Annotations; a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
					t.Errorf("workspace_edit capped at read should be neither read-only nor destructive: %+v", a)
				}
				if a := tools["workspace_notes"].Annotations; !a.ReadOnlyHint {
					t.Errorf("workspace_notes capped at read (read, list) should be read-only: %+v", a)
				}
				if a := tools["workspace_tasks"].Annotations; a.ReadOnlyHint {
					t.Errorf("workspace_tasks capped at read still offers todo_write, so it is not read-only: %+v", a)
				}
				// A call for an action the cap took away is refused.
				env := c.call(t, "workspace_edit", map[string]any{"action": "apply", "operations": []any{map[string]any{"type": "create", "path": "x", "content": "x"}}})
				if get(env, ".error.code") != "TOOL_DISABLED" {
					t.Errorf("apply at --tier read: %v", env)
				}
				if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
					t.Errorf("apply at --tier read wrote the file")
				}
			}
		})
	}
}

// enabled reports whether a row's tool is on with default settings.
func enabled(row *dispatch.Action) bool {
	s := workspace.Defaults()
	ok, _ := row.Tool.Enabled(&s)
	return ok
}

func TestMCPStagedInManualMode(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 0}`)
	c := startMCP(t, dir, clientOpts{})
	env := c.call(t, "workspace_edit", map[string]any{"action": "apply", "operations": []any{
		map[string]any{"type": "create", "path": "staged.txt", "content": "hello\n"},
	}})
	if get(env, ".data.status") != "pending_approval" || get(env, ".ok") != true {
		t.Fatalf("apply in Manual mode: %v", env)
	}
	id, _ := get(env, ".data.approval.id").(string)
	if !strings.HasPrefix(id, "approval_") || !strings.Contains(env["summary"].(string), id) {
		t.Errorf("approval id %q not in summary: %v", id, env["summary"])
	}
	if get(env, ".data.approval.resume.tool") != "workspace_edit" || get(env, ".data.approval.resume.arguments.action") != "commit" {
		t.Errorf("resume call: %v", get(env, ".data.approval.resume"))
	}
	if _, err := os.Stat(filepath.Join(dir, "staged.txt")); err == nil {
		t.Errorf("a staged apply wrote the file")
	}
}

func TestMCPSettingsChangeNotifies(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", ""} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			dir := mcpWorkspace(t, `{"permissionMode": 1}`)
			c := startMCP(t, dir, clientOpts{protocol: protocol})
			if c.tools(t)["workspace_plan"] == nil {
				t.Fatal("workspace_plan not listed in Plan mode")
			}
			// A human switches to Auto: workspace_plan goes away.
			writeSettings(t, dir, `{"permissionMode": 2}`)
			select {
			case <-c.changed:
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/tools/list_changed within 10s of a settings change")
			}
			if c.tools(t)["workspace_plan"] != nil {
				t.Error("workspace_plan still listed in Auto mode")
			}
			// A broken config: only the status tool, which says why.
			writeSettings(t, dir, `{"permissionMode": "loud"}`)
			select {
			case <-c.changed:
			case <-time.After(10 * time.Second):
				t.Fatal("no list_changed after the config broke")
			}
			tools := c.tools(t)
			if len(tools) != 1 || tools["agentic_workspace_status"] == nil {
				t.Fatalf("with a broken config: %v", tools)
			}
			env := c.call(t, "agentic_workspace_status", nil)
			if env["ok"] != false || !strings.Contains(fmt.Sprint(get(env, ".error.message")), "permissionMode") {
				t.Errorf("status tool: %v", env)
			}
			writeSettings(t, dir, `{"permissionMode": 1}`)
			select {
			case <-c.changed:
			case <-time.After(10 * time.Second):
				t.Fatal("no list_changed after the config was fixed")
			}
			if c.tools(t)["workspace_plan"] == nil {
				t.Error("tools not back after the config was fixed")
			}
		})
	}
}

func TestMCPStatusToolWhenWorkspaceCannotOpen(t *testing.T) {
	dir := mcpWorkspace(t, `{not json`)
	c := startMCP(t, dir, clientOpts{})
	tools := c.tools(t)
	if len(tools) != 1 || tools["agentic_workspace_status"] == nil {
		t.Fatalf("tools %v, want only agentic_workspace_status", tools)
	}
	env := c.call(t, "agentic_workspace_status", map[string]any{})
	if env["ok"] != false || !strings.Contains(env["summary"].(string), "cannot be opened") {
		t.Errorf("status: %v", env)
	}
}

func TestMCPElicitApprovals(t *testing.T) {
	for _, tc := range []struct {
		protocol, decision, want string
	}{
		{"2025-11-25", "accept", "approved"},
		{"", "accept", "approved"},
		{"2025-11-25", "deny", "denied"},
		{"", "dismiss", "pending"},
	} {
		t.Run(tc.protocol+"/"+tc.decision, func(t *testing.T) {
			dir := mcpWorkspace(t, `{"permissionMode": 0, "mcp": {"elicitApprovals": true}}`)
			var asked string
			c := startMCP(t, dir, clientOpts{protocol: tc.protocol, elicit: func(p *mcp.ElicitParams) *mcp.ElicitResult {
				asked = p.Message
				if tc.decision == "dismiss" {
					return &mcp.ElicitResult{Action: "cancel"}
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": tc.decision, "note": "from the test"}}
			}})
			env := c.call(t, "workspace_edit", map[string]any{"action": "apply", "operations": []any{
				map[string]any{"type": "create", "path": "elicited.txt", "content": "hi\n"},
			}})
			if !strings.Contains(asked, "elicited.txt") && !strings.Contains(asked, "Commit tx_") {
				t.Errorf("the human was not shown the change: %q", asked)
			}
			id, _ := get(env, ".data.approval.id").(string)
			if get(env, ".data.status") != map[string]string{"approved": "approved", "denied": "denied", "pending": "pending_approval"}[tc.want] {
				t.Fatalf("after %s: %v", tc.decision, env)
			}
			// The record is decided exactly as `aw approval accept|deny` would.
			list := runAWEnv(t, dir, nil, []string{"XDG_CONFIG_HOME=" + dir + "-userconfig"}, "approval", "show", id)
			if st := list.field(t, ".data.approval.status"); st != tc.want {
				t.Fatalf("approval %s is %v, want %s", id, st, tc.want)
			}
			if tc.want == "approved" {
				if note := list.field(t, ".data.approval.note"); note != "from the test" {
					t.Errorf("note %v", note)
				}
				// The agent resumes with exactly the resume call.
				args := get(env, ".data.approval.resume.arguments").(map[string]any)
				done := c.call(t, "workspace_edit", args)
				if done["ok"] != true || get(done, ".data.status") != "applied" {
					t.Fatalf("resume after approval: %v", done)
				}
				if _, err := os.Stat(filepath.Join(dir, "elicited.txt")); err != nil {
					t.Errorf("the approved commit did not write the file: %v", err)
				}
			}
		})
	}
}

// A forged answer (a requestState the server never issued) decides nothing.
func TestMCPForgedElicitationAnswer(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 0, "mcp": {"elicitApprovals": true}}`)
	c := startMCP(t, dir, clientOpts{})
	env := c.call(t, "workspace_edit", map[string]any{"action": "apply", "operations": []any{
		map[string]any{"type": "create", "path": "f.txt", "content": "f\n"},
	}})
	id, _ := get(env, ".data.approval.id").(string)
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workspace_edit", Arguments: map[string]any{"action": "list"},
		RequestState: "forged", InputResponses: mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "accept"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Errorf("a forged answer was not refused")
	}
	show := runAWEnv(t, dir, nil, []string{"XDG_CONFIG_HOME=" + dir + "-userconfig"}, "approval", "show", id)
	if st := show.field(t, ".data.approval.status"); st != "pending" {
		t.Errorf("approval %s is %v after a forged answer", id, st)
	}
}

// Malformed JSON-RPC gets JSON-RPC errors, the server keeps serving, and it
// exits 0 when stdin closes.
func TestMCPMalformedAndCleanExit(t *testing.T) {
	dir := mcpWorkspace(t, "")
	cmd := exec.Command(awBin, "mcp", "--root", dir)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir+"-userconfig", "AW_ROOT=")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<24)
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	recv := func() map[string]any {
		t.Helper()
		done := make(chan map[string]any, 1)
		go func() {
			if !lines.Scan() {
				done <- nil
				return
			}
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Errorf("stdout line is not JSON: %q", lines.Text())
			}
			done <- m
		}()
		select {
		case m := <-done:
			if m == nil {
				t.Fatalf("server closed stdout; stderr: %s", stderr.String())
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no response within 10s")
		}
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if r := recv(); get(r, ".result.serverInfo.name") != "aw" {
		t.Fatalf("initialize: %v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tc := range []struct{ req, why string }{
		{`{"jsonrpc":"2.0","id":2,"method":"no/such/method"}`, "unknown method"},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"workspace_nope","arguments":{}}}`, "unknown tool"},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}`, "wrong params type"},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"workspace_inspect","arguments":"read"}}`, "arguments not an object"},
	} {
		send(tc.req)
		r := recv()
		if r["error"] == nil {
			// A tool-level refusal is also acceptable for bad arguments, as
			// long as it is an error result, not a crash.
			if get(r, ".result.isError") != true {
				t.Errorf("%s: no error: %v", tc.why, r)
			}
			continue
		}
		if code, _ := get(r, ".error.code").(float64); code >= 0 {
			t.Errorf("%s: error code %v", tc.why, code)
		}
	}
	send(`this is not json`)
	r := recv()
	if code, _ := get(r, ".error.code").(float64); code != -32700 {
		t.Errorf("garbage: %v, want a parse error -32700", r)
	}
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"workspace_inspect","arguments":{"action":"read","path":"README.md"}}}`)
	if r := recv(); get(r, ".result.structuredContent.data.totalLines") != float64(3) {
		t.Errorf("the server did not keep serving after bad requests: %v", r)
	}
	stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("aw mcp exited with %v after stdin closed; stderr: %s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("aw mcp did not exit within 10s of stdin closing")
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// BenchmarkMCPReadRoundTrip measures, in one run and alternating, the
// round-trip of workspace_inspect read through `aw mcp`, of `aw inspect
// read` as a process, and of the reference MCP filesystem server
// (@modelcontextprotocol/server-filesystem, npm) doing read_text_file on the
// same file. It reports each median and the ratios:
//
//	go test ./cmd/aw -run '^$' -bench MCPReadRoundTrip -benchtime 200x
func BenchmarkMCPReadRoundTrip(b *testing.B) {
	dir := mcpWorkspace(b, "")
	var text strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&text, "line %d of the benchmark file, with some words to read\n", i)
	}
	file := filepath.Join(dir, "bench.txt")
	if err := os.WriteFile(file, []byte(text.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	// The same protocol version as the filesystem server speaks.
	aw := startMCP(b, dir, clientOpts{protocol: "2025-06-18"})
	awRead := &mcp.CallToolParams{Name: "workspace_inspect", Arguments: map[string]any{"action": "read", "path": "bench.txt"}}

	var fs *mcp.ClientSession
	if _, err := exec.LookPath("npx"); err == nil {
		real, _ := filepath.EvalSymlinks(dir)
		cmd := exec.Command("npx", "-y", "@modelcontextprotocol/server-filesystem@2026.8.31", real)
		client := mcp.NewClient(&mcp.Implementation{Name: "aw-bench", Version: "1"}, nil)
		cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		s, err := client.Connect(cctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		cancel()
		if err != nil {
			b.Logf("server-filesystem unavailable (%v): its column is skipped", err)
		} else {
			fs = s
			defer fs.Close()
		}
	}
	fsRead := &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": file}}
	if fs != nil {
		fsRead.Arguments = map[string]any{"path": filepath.Join(mustReal(b, dir), "bench.txt")}
	}

	// Equivalent output first: the same text, gutter aside.
	res, err := aw.cs.CallTool(ctx, awRead)
	if err != nil || res.IsError {
		b.Fatalf("aw read: %v %v", err, res)
	}
	content := get(res.StructuredContent, ".data.content").(string)
	var plain strings.Builder
	for _, l := range strings.SplitAfter(content, "\n") {
		if _, after, ok := strings.Cut(l, "\t"); ok {
			plain.WriteString(after)
		}
	}
	if plain.String() != text.String() {
		b.Fatalf("aw read returned other text")
	}
	if fs != nil {
		r, err := fs.CallTool(ctx, fsRead)
		if err != nil || r.IsError || r.Content[0].(*mcp.TextContent).Text != text.String() {
			b.Fatalf("server-filesystem read_text_file: %v %+v", err, r)
		}
	}

	var tMCP, tProc, tFS []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := aw.cs.CallTool(ctx, awRead); err != nil {
			b.Fatal(err)
		}
		tMCP = append(tMCP, time.Since(start))

		start = time.Now()
		cmd := execAW(dir, "-o", "json", "inspect", "read", "bench.txt")
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		tProc = append(tProc, time.Since(start))

		if fs != nil {
			start = time.Now()
			if _, err := fs.CallTool(ctx, fsRead); err != nil {
				b.Fatal(err)
			}
			tFS = append(tFS, time.Since(start))
		}
	}
	b.StopTimer()
	mMCP, mProc := median(tMCP), median(tProc)
	b.ReportMetric(float64(mMCP.Microseconds()), "aw-mcp-µs")
	b.ReportMetric(float64(mProc.Microseconds()), "aw-process-µs")
	b.ReportMetric(float64(mProc)/float64(mMCP), "process/mcp")
	line := fmt.Sprintf("median of %d: aw mcp %v, aw inspect read process %v (%.1fx the MCP round-trip)", b.N, mMCP, mProc, float64(mProc)/float64(mMCP))
	if fs != nil {
		mFS := median(tFS)
		b.ReportMetric(float64(mFS.Microseconds()), "server-filesystem-µs")
		b.ReportMetric(float64(mMCP)/float64(mFS), "aw-mcp/server-filesystem")
		line += fmt.Sprintf(", server-filesystem read_text_file %v (aw mcp is %.2fx its time)", mFS, float64(mMCP)/float64(mFS))
	}
	b.Log(line)
}

func mustReal(b *testing.B, dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		b.Fatal(err)
	}
	return real
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// A settings change on disk applies to the next call of a running server,
// however it was written: a plain rewrite, a rewrite of the same size with
// its modification time set back to an old one (the server keeps decoded
// settings while their files look unchanged), and a file replaced by
// rename. Gated behaviour follows at once too: a write staged in Plan mode
// commits straight through in Auto.
func TestMCPSettingsChangeAppliesToNextCall(t *testing.T) {
	dir := mcpWorkspace(t, "")
	var text strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "lines.txt"), []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, ".agentic", "config.json")
	old := time.Now().Add(-time.Hour)
	write := func(settings string, mtime time.Time) {
		t.Helper()
		writeSettings(t, dir, settings)
		if !mtime.IsZero() {
			if err := os.Chtimes(config, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := startMCP(t, dir, clientOpts{})
	lines := func() float64 {
		t.Helper()
		env := c.call(t, "workspace_inspect", map[string]any{"action": "read", "path": "lines.txt"})
		n, _ := get(env, ".data.endLine").(float64)
		return n
	}
	write(`{"read": {"defaultLines": 11}}`, old)
	if n := lines(); n != 11 {
		t.Fatalf("read.defaultLines 11: the window ends at line %v", n)
	}
	lines() // the decoded settings are kept from here on
	write(`{"read": {"defaultLines": 12}}`, time.Time{})
	if n := lines(); n != 12 {
		t.Errorf("after a rewrite: the window ends at line %v, want 12", n)
	}
	write(`{"read": {"defaultLines": 13}}`, old)
	lines()
	// Same size, modification time set back to another old time.
	write(`{"read": {"defaultLines": 14}}`, old.Add(-time.Minute))
	if n := lines(); n != 14 {
		t.Errorf("after a same-size rewrite dated in the past: the window ends at line %v, want 14", n)
	}
	// Replaced by rename, dated like the file it replaces.
	next := config + ".new"
	if err := os.WriteFile(next, []byte(`{"read": {"defaultLines": 15}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(next, old.Add(-time.Minute), old.Add(-time.Minute))
	if err := os.Rename(next, config); err != nil {
		t.Fatal(err)
	}
	if n := lines(); n != 15 {
		t.Errorf("after a replace by rename: the window ends at line %v, want 15", n)
	}
	// Removed: the defaults.
	os.Remove(config)
	if n := lines(); n != 30 {
		t.Errorf("after the config was removed: the window ends at line %v, want 30 (the default covers the file)", n)
	}

	// The gate, with same-size settings dated in the past: Manual stages
	// an apply, Auto applies it, Manual again stages.
	apply := func(name string) map[string]any {
		return c.call(t, "workspace_edit", map[string]any{"action": "apply", "operations": []any{
			map[string]any{"type": "create", "path": name, "content": "x\n"}}})
	}
	write(`{"permissionMode": 0}`, old)
	if env := apply("manual.txt"); get(env, ".data.status") != "pending_approval" {
		t.Errorf("apply in Manual mode: %v", env)
	}
	write(`{"permissionMode": 2}`, old.Add(-time.Minute))
	if env := apply("auto.txt"); env["ok"] != true || get(env, ".data.status") == "pending_approval" {
		t.Errorf("apply in Auto mode: %v", env)
	}
	if _, err := os.Stat(filepath.Join(dir, "auto.txt")); err != nil {
		t.Errorf("apply in Auto mode did not write: %v", err)
	}
	write(`{"permissionMode": 0}`, old.Add(-2*time.Minute))
	if env := apply("manual2.txt"); get(env, ".data.status") != "pending_approval" {
		t.Errorf("apply in Manual mode again: %v", env)
	}
	for _, name := range []string{"manual.txt", "manual2.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was written in Manual mode", name)
		}
	}
}

// A running server reads what the file holds at each call and refuses a
// path as soon as the settings deny it: a file rewritten to the same size
// with its modification time set back, a small file read after a large
// one (result buffers are reused between calls), and denyPaths added and
// removed between two calls.
func TestMCPReadSeesFileAndDenyChanges(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 1}`)
	file := filepath.Join(dir, "notes.txt")
	old := time.Now().Add(-time.Hour)
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(file, old, old)
	}
	c := startMCP(t, dir, clientOpts{})
	read := func(path string) map[string]any {
		t.Helper()
		return c.call(t, "workspace_inspect", map[string]any{"action": "read", "path": path})
	}
	content := func(env map[string]any) string {
		s, _ := get(env, ".data.content").(string)
		return s
	}
	write("alpha\n")
	if got := content(read("notes.txt")); got != "     1\talpha\n" {
		t.Fatalf("first read: %q", got)
	}
	write("bravo\n")
	if got := content(read("notes.txt")); got != "     1\tbravo\n" {
		t.Errorf("after a same-size rewrite dated in the past: %q, want bravo", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("a long line of text that fills the buffer\n", 2000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if env := read("big.txt"); env["ok"] != true {
		t.Fatalf("big read: %v", env)
	}
	if env := read("notes.txt"); content(env) != "     1\tbravo\n" || get(env, ".data.totalBytes") != float64(6) {
		t.Errorf("a small read after a large one: %v", env)
	}
	writeSettings(t, dir, `{"permissionMode": 1, "denyPaths": ["notes.*"]}`)
	if env := read("notes.txt"); env["ok"] != false || get(env, ".error.code") != codeEscape || strings.Contains(fmt.Sprint(env), "bravo") {
		t.Errorf("read of a path denied since the last call: %v", env)
	}
	writeSettings(t, dir, `{"permissionMode": 1}`)
	if got := content(read("notes.txt")); got != "     1\tbravo\n" {
		t.Errorf("after denyPaths was lifted: %q", got)
	}
}

// notifications/cancelled ends a call in flight: a wait for output from a
// silent job answers at once instead of after its 30 s.
func TestMCPCancelledCallEnds(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 2, "commands": {"allow": ["sleep"]}}`)
	cmd := exec.Command(awBin, "mcp", "--root", dir)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir+"-userconfig", "AW_ROOT=")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	lines := make(chan string)
	go func() {
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- line
		}
	}()
	recv := func(within time.Duration) string {
		t.Helper()
		select {
		case line := <-lines:
			return line
		case <-time.After(within):
			t.Fatalf("no response within %v", within)
		}
		return ""
	}
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	recv(10 * time.Second)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"workspace_command","arguments":{"action":"start","executable":"sleep","args":["60"]}}}`)
	var start map[string]any
	json.Unmarshal([]byte(recv(10*time.Second)), &start)
	job, _ := get(start, ".result.structuredContent.data.jobId").(string)
	if job == "" {
		t.Fatalf("start: %v", start)
	}
	defer func() {
		send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"workspace_command","arguments":{"action":"cancel","all":true}}}`)
		recv(10 * time.Second)
	}()
	send(`{"jsonrpc":"2.0","id":"w-1","method":"tools/call","params":{"name":"workspace_command","arguments":{"action":"output","job_id":"` + job + `","wait_ms":30000}}}`)
	time.Sleep(300 * time.Millisecond)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w-1","reason":"test"}}`)
	if resp := recv(10 * time.Second); !strings.HasPrefix(resp, `{"jsonrpc":"2.0","id":"w-1","result":`) {
		t.Fatalf("the cancelled call answered %.300s", resp)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if resp := recv(10 * time.Second); !strings.Contains(resp, `"id":3,"result":{}`) {
		t.Errorf("ping after the cancel: %.300s", resp)
	}
}
