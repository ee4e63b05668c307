package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/agent"
	"github.com/agentic-workspace/aw/engine/agent/agenttest"
)

type M = map[string]any

// agentWorkspace is a workspace whose sub-agents talk to model, with
// extra settings merged in (JSON object members, without braces).
func agentWorkspace(t *testing.T, model interface{ BaseURL() string }, mode int, extra string) string {
	t.Helper()
	if extra != "" {
		extra = ", " + extra
	}
	return mcpWorkspace(t, fmt.Sprintf(`{"permissionMode": %d, "agents": {"enabled": true, "baseUrl": %q, "model": "scripted"%s}}`, mode, model.BaseURL(), extra))
}

func call(tool string, args M) agenttest.Call {
	return agenttest.Call{Tool: tool, Args: agenttest.Args(args)}
}

const report = `{"summary": "README line two now says 2", "evidence": ["README.md:2"], "remaining_work": [], "confidence": "high"}`

// toolEnum is the action enum a request offered for one tool.
func toolEnum(req *agent.ChatRequest, tool string) []string {
	for _, d := range req.Tools {
		if d.Function.Name != tool {
			continue
		}
		props, _ := d.Function.Parameters["properties"].(map[string]any)
		action, _ := props["action"].(map[string]any)
		var out []string
		for _, v := range action["enum"].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	return nil
}

func TestAgentRunEditsAndFinishes(t *testing.T) {
	var tools []string
	model := agenttest.New(t,
		agenttest.Turn{Calls: []agenttest.Call{call("workspace_inspect", M{"action": "read", "path": "README.md"})},
			Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
				tools = agenttest.ToolNames(req)
				if req.Model != "scripted" || len(req.Messages) != 2 || !strings.Contains(req.Messages[1].Content, "Change line two") {
					t.Errorf("first request: %s", raw)
				}
			}},
		agenttest.Turn{Content: "Replacing the line.", Calls: []agenttest.Call{call("workspace_edit", M{"action": "apply", "operations": []any{M{"type": "replace", "path": "README.md", "search": "line two", "replacement": "line 2"}}})},
			Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
				last := req.Messages[len(req.Messages)-1]
				if last.Role != "tool" || !strings.Contains(last.Content, `"operation":"inspect.read"`) || !strings.Contains(last.Content, "line two") {
					t.Errorf("the read's result did not come back: %+v", last)
				}
			}},
		agenttest.Turn{Content: report},
	)
	dir := agentWorkspace(t, model, 2, "")
	r := runAW(t, dir, nil, "agent", "run", "--objective", "Change line two of README.md to say 2", "--context", "the file is small")
	if r.Code != 0 || r.field(t, ".data.status") != "completed" {
		t.Fatalf("run: %d %s", r.Code, r.Stdout)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "README.md")); !strings.Contains(string(got), "line 2\n") {
		t.Errorf("README.md not edited: %q", got)
	}
	if r.field(t, ".data.summary") != "README line two now says 2" || r.field(t, ".data.confidence") != "high" || r.field(t, ".data.commitEdits") != true {
		t.Errorf("report: %s", r.Stdout)
	}
	if fmt.Sprint(r.field(t, ".data.changedPaths")) != "[README.md]" || len(r.field(t, ".data.transactions").([]any)) != 1 || r.field(t, ".data.toolCalls") != float64(2) {
		t.Errorf("ledger: %s", r.Stdout)
	}
	for _, want := range []string{"workspace_inspect", "workspace_edit", "workspace_notes"} {
		if !slices.Contains(tools, want) {
			t.Errorf("tools %v lack %s", tools, want)
		}
	}
	// No plans, no sub-agents of its own, no commands (agents.allowCommands off).
	for _, never := range []string{"workspace_plan", "workspace_agent", "workspace_command", "workspace_browser"} {
		if slices.Contains(tools, never) {
			t.Errorf("tools %v offer %s", tools, never)
		}
	}
	id := r.field(t, ".data.runId").(string)
	state, transcript := r.field(t, ".data.statePath").(string), r.field(t, ".data.transcriptPath").(string)
	if state != ".agentic/agents/"+id+"/state.json" || transcript != ".agentic/agents/"+id+"/transcript.jsonl" {
		t.Errorf("paths %s %s", state, transcript)
	}
	raw, err := os.ReadFile(filepath.Join(dir, transcript))
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var ev agent.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("transcript line %q: %v", line, err)
		}
		types = append(types, ev.Type)
	}
	if strings.Join(types, " ") != "run_started reply tool_result reply tool_result reply run_end" {
		t.Errorf("transcript events: %v", types)
	}
	if !strings.Contains(string(raw), "thinking about turn 0") {
		t.Errorf("reasoning_content was not recorded")
	}
	// status, history and list read what the run left.
	st := runAW(t, dir, nil, "agent", "status", id)
	if st.field(t, ".data.status") != "completed" || st.field(t, ".data.summary") != "README line two now says 2" {
		t.Errorf("status: %s", st.Stdout)
	}
	h := runAW(t, dir, nil, "agent", "history", id, "--limit", "2")
	if h.field(t, ".data.total") != float64(7) || len(h.field(t, ".data.events").([]any)) != 2 || h.field(t, ".data.nextOffset") != float64(2) {
		t.Errorf("history: %s", h.Stdout)
	}
	h = runAW(t, dir, nil, "agent", "history", id, "--offset", "6")
	if len(h.field(t, ".data.events").([]any)) != 1 || h.field(t, ".data.truncated") != false {
		t.Errorf("history tail: %s", h.Stdout)
	}
	l := runAW(t, dir, nil, "agent", "list")
	if l.field(t, ".data.total") != float64(1) || l.field(t, ".data.runs.0.runId") != id {
		t.Errorf("list: %s", l.Stdout)
	}
	// The recovery listing names the run.
	ch := runAW(t, dir, nil, "inspect", "changes")
	if ch.field(t, ".data.runs.0.id") != id || ch.field(t, ".data.runs.0.status") != "completed" {
		t.Errorf("inspect changes: %s", ch.Stdout)
	}
}

func TestAgentCommitEditsFalseLeavesTransactionPlanned(t *testing.T) {
	var enum []string
	model := agenttest.New(t,
		agenttest.Turn{Calls: []agenttest.Call{call("workspace_edit", M{"action": "apply", "operations": []any{M{"type": "replace", "path": "README.md", "search": "line two", "replacement": "line 2"}}})},
			Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) { enum = toolEnum(req, "workspace_edit") }},
		agenttest.Turn{Calls: []agenttest.Call{call("workspace_edit", M{"action": "commit", "transaction_id": "tx_x"})},
			Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
				last := req.Messages[len(req.Messages)-1].Content
				if !strings.Contains(last, `"operation":"edit.preview"`) || !strings.Contains(last, `"status":"planned"`) || !strings.Contains(last, "commit_edits=false") {
					t.Errorf("apply was not run as a preview: %s", last)
				}
			}},
		agenttest.Turn{Content: report, Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
			last := req.Messages[len(req.Messages)-1].Content
			if !strings.Contains(last, `"ok":false`) || !strings.Contains(last, "cannot call workspace_edit action \\\"commit\\\" (commit_edits=false") {
				t.Errorf("commit was not refused to the run: %s", last)
			}
		}},
	)
	dir := agentWorkspace(t, model, 2, "")
	r := runAW(t, dir, nil, "agent", "run", "Change line two", "--commit-edits=false")
	if r.Code != 0 || r.field(t, ".data.status") != "completed" || r.field(t, ".data.commitEdits") != false {
		t.Fatalf("run: %s", r.Stdout)
	}
	if slices.Contains(enum, "apply") || slices.Contains(enum, "commit") || !slices.Contains(enum, "preview") {
		t.Errorf("edit actions offered: %v", enum)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "README.md")); !strings.Contains(string(got), "line two") {
		t.Errorf("README.md changed: %q", got)
	}
	txs := r.field(t, ".data.transactions").([]any)
	if len(txs) != 1 || len(r.field(t, ".data.changedPaths").([]any)) != 0 {
		t.Fatalf("ledger: %s", r.Stdout)
	}
	tx := txs[0].(string)
	if show := runAW(t, dir, nil, "edit", "show", tx); show.field(t, ".data.status") != "planned" {
		t.Errorf("transaction %s: %s", tx, show.Stdout)
	}
	ev := fmt.Sprint(r.field(t, ".data.evidence"))
	if !strings.Contains(ev, "transaction "+tx+" planned: README.md") || !strings.Contains(r.Env["summary"].(string), "aw edit commit") {
		t.Errorf("the planned transaction is not cited: %s", r.Stdout)
	}
	// The main agent commits it afterwards, through the gate as usual.
	if c := runAW(t, dir, nil, "edit", "commit", tx); c.Code != 0 {
		t.Errorf("commit: %s", c.Stdout)
	}
}

func TestAgentManualModeStagesOrStarts(t *testing.T) {
	model := agenttest.New(t, agenttest.Turn{Content: report})
	// Commands on, agents.allowCommands on: the run could run commands, so
	// the call is staged, and nothing reaches the model.
	dir := agentWorkspace(t, model, 0, `"allowCommands": true`)
	r := runAW(t, dir, nil, "agent", "run", "Run the tests")
	if r.Code != 3 || r.field(t, ".data.status") != "pending_approval" || r.field(t, ".data.approval.kind") != "agent" {
		t.Fatalf("staged: %d %s", r.Code, r.Stdout)
	}
	if !strings.Contains(fmt.Sprint(r.field(t, ".data.approval.resume.arguments")), "Run the tests") {
		t.Errorf("resume: %s", r.Stdout)
	}
	// Invalid input is refused before the gate, never staged.
	bad := runAW(t, dir, nil, "agent", "run", "--objective", strings.Repeat("x", agent.MaxObjectiveChars+1))
	if bad.field(t, ".error.code") != "INVALID_INPUT" || !strings.Contains(bad.field(t, ".error.message").(string), "20000") {
		t.Errorf("over-long objective: %s", bad.Stdout)
	}
	// research mode defaults to no commands (and the web is off): nothing
	// to gate, the run starts at once with commit_edits=false.
	r = runAW(t, dir, nil, "agent", "run", "Summarize README", "--mode", "research")
	if r.Code != 0 || r.field(t, ".data.status") != "completed" || r.field(t, ".data.commitEdits") != false || r.field(t, ".data.allowCommands") != false {
		t.Errorf("research run: %d %s", r.Code, r.Stdout)
	}
	// allow_commands=false does the same for a coding run; commit_edits
	// true cannot raise Manual's default.
	model2 := agenttest.New(t, agenttest.Turn{Content: report})
	dir2 := agentWorkspace(t, model2, 0, `"allowCommands": true`)
	r = runAW(t, dir2, nil, "agent", "run", "Edit README", "--allow-commands=false", "--commit-edits=true")
	if r.Code != 0 || r.field(t, ".data.commitEdits") != false || model2.Served() != 1 {
		t.Errorf("run without commands: %d %s", r.Code, r.Stdout)
	}
	if model.Served() != 1 {
		t.Errorf("the model served %d requests, want 1 (the staged run must not start)", model.Served())
	}
}

func TestAgentPlanModeRefusesWithoutPlan(t *testing.T) {
	model := agenttest.New(t)
	dir := agentWorkspace(t, model, 1, "")
	r := runAW(t, dir, nil, "agent", "run", "Edit README")
	if r.Code != 1 || r.field(t, ".error.code") != "APPROVAL_REQUIRED" {
		t.Fatalf("plan mode: %s", r.Stdout)
	}
	// Input validation comes first.
	r = runAW(t, dir, nil, "agent", "run", "--mode", "poetry", "x")
	if r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Errorf("bad mode: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "agent", "run")
	if r.field(t, ".error.code") != "INVALID_INPUT" || !strings.Contains(r.field(t, ".error.message").(string), "objective is required") {
		t.Errorf("no objective: %s", r.Stdout)
	}
	if model.Served() != 0 {
		t.Errorf("the model was asked %d times", model.Served())
	}
}

func TestAgentToolCallErrorsLetTheRunGoOn(t *testing.T) {
	model := agenttest.New(t,
		agenttest.Turn{Calls: []agenttest.Call{
			{Tool: "workspace_inspect", Args: `{"action": "read", "path": `},
			call("workspace_teleport", M{"action": "go"}),
			call("workspace_inspect", M{"action": "read", "path": "../outside.txt"}),
			call("workspace_edit", M{"action": "apply", "operations": []any{M{"type": "create", "path": ".agentic/config.json", "content": "{}", "overwrite": true}}}),
			call("workspace_inspect", M{"action": "bogus"}),
		}},
		agenttest.Turn{Content: "plain words, not JSON", Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
			var codes []string
			for _, m := range req.Messages {
				if m.Role == "tool" {
					var env struct {
						Error struct{ Code, Message string }
					}
					json.Unmarshal([]byte(m.Content), &env)
					codes = append(codes, env.Error.Code)
				}
			}
			if strings.Join(codes, " ") != "INVALID_INPUT INVALID_INPUT PATH_ESCAPE PROTECTED_PATH INVALID_INPUT" {
				t.Errorf("tool results: %v", codes)
			}
			if !strings.Contains(string(raw), "not a JSON object") || !strings.Contains(string(raw), "this run has no tool") {
				t.Errorf("the errors do not say what was wrong: %s", raw)
			}
		}},
	)
	dir := agentWorkspace(t, model, 2, "")
	r := runAW(t, dir, nil, "agent", "run", "Try things")
	if r.Code != 0 || r.field(t, ".data.status") != "completed" || r.field(t, ".data.summary") != "plain words, not JSON" || r.field(t, ".data.confidence") != "unknown" {
		t.Fatalf("run: %s", r.Stdout)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".agentic", "config.json")); string(got) == "{}" {
		t.Error("the run wrote .agentic/config.json")
	}
}

func TestAgentCaps(t *testing.T) {
	stat := call("workspace_inspect", M{"action": "stat", "path": "README.md"})
	t.Run("max_tool_calls", func(t *testing.T) {
		model := agenttest.New(t,
			agenttest.Turn{Calls: []agenttest.Call{stat, stat}},
			agenttest.Turn{Calls: []agenttest.Call{stat, stat}, Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
				if len(req.Tools) != 0 || !strings.Contains(req.Messages[len(req.Messages)-1].Content, "used all 2 of its tool calls") {
					t.Errorf("after the cap the request still offers tools: %d", len(req.Tools))
				}
			}},
		)
		dir := agentWorkspace(t, model, 2, "")
		r := runAW(t, dir, nil, "agent", "run", "Stat forever", "--max-tool-calls", "2")
		if r.field(t, ".data.status") != "stopped" || r.field(t, ".data.stoppedBy") != "max_tool_calls" || r.field(t, ".data.toolCalls") != float64(2) {
			t.Fatalf("run: %s", r.Stdout)
		}
		if !strings.Contains(fmt.Sprint(r.field(t, ".data.remainingWork")), "max_tool_calls cap") {
			t.Errorf("remaining work: %s", r.Stdout)
		}
	})
	t.Run("passes_and_rounds", func(t *testing.T) {
		var turns []agenttest.Turn
		for i := 0; i < 4; i++ {
			turn := agenttest.Turn{Content: fmt.Sprintf("step %d done", i), Calls: []agenttest.Call{stat}}
			if i == 2 {
				// The second pass starts afresh from the saved state.
				turn.Check = func(t testing.TB, req *agent.ChatRequest, raw []byte) {
					if len(req.Messages) != 2 || !strings.Contains(req.Messages[1].Content, "Pass 1 summary:\nstep 0 done\nstep 1 done") || !strings.Contains(req.Messages[1].Content, "inspect.stat → ok") || !strings.Contains(req.Messages[1].Content, "pass 2 of at most 2") {
						t.Errorf("pass 2 was not rebuilt from state: %s", raw)
					}
				}
			}
			turns = append(turns, turn)
		}
		model := agenttest.New(t, turns...)
		dir := agentWorkspace(t, model, 2, "")
		r := runAW(t, dir, nil, "agent", "run", "Stat forever", "--max-passes", "2", "--rounds-per-pass", "2")
		if r.field(t, ".data.status") != "stopped" || r.field(t, ".data.stoppedBy") != "max_passes" || r.field(t, ".data.passes") != float64(2) || model.Served() != 4 {
			t.Fatalf("run: %s (served %d)", r.Stdout, model.Served())
		}
		if r.field(t, ".data.summary") != "step 2 done\nstep 3 done" {
			t.Errorf("summary: %s", r.Stdout)
		}
	})
	t.Run("out_of_range", func(t *testing.T) {
		dir := agentWorkspace(t, agenttest.New(t), 2, "")
		for _, args := range [][]string{{"--max-passes", "21"}, {"--rounds-per-pass", "-1"}, {"--max-tool-calls", "501"}} {
			r := runAW(t, dir, nil, append([]string{"agent", "run", "x"}, args...)...)
			if r.field(t, ".error.code") != "INVALID_INPUT" {
				t.Errorf("%v: %s", args, r.Stdout)
			}
		}
	})
}

func TestAgentIdempotencyKey(t *testing.T) {
	model := agenttest.New(t, agenttest.Turn{Content: report})
	dir := agentWorkspace(t, model, 2, "")
	first := runAW(t, dir, nil, "agent", "run", "Edit README", "--idempotency-key", "k1")
	again := runAW(t, dir, nil, "agent", "run", "Edit README", "--idempotency-key", "k1")
	if first.field(t, ".data.runId") != again.field(t, ".data.runId") || model.Served() != 1 {
		t.Fatalf("re-issued key: %s / %s", first.Stdout, again.Stdout)
	}
	other := runAW(t, dir, nil, "agent", "run", "Edit something else", "--idempotency-key", "k1")
	if other.field(t, ".error.code") != "EDIT_CONFLICT" {
		t.Errorf("same key, other objective: %s", other.Stdout)
	}
	// Manual mode flips commit_edits' default: another specification.
	writeSettings(t, dir, fmt.Sprintf(`{"permissionMode": 0, "agents": {"enabled": true, "baseUrl": %q, "model": "scripted"}}`, model.BaseURL()))
	flipped := runAW(t, dir, nil, "agent", "run", "Edit README", "--idempotency-key", "k1")
	if flipped.field(t, ".error.code") != "EDIT_CONFLICT" || !strings.Contains(flipped.field(t, ".error.message").(string), "commit_edits") {
		t.Errorf("after the mode change: %s", flipped.Stdout)
	}
}

func TestAgentRefusals(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 2}`)
	r := runAW(t, dir, nil, "agent", "run", "x")
	if r.field(t, ".error.code") != "TOOL_DISABLED" || r.field(t, ".error.details.setting") != "agents.enabled" {
		t.Errorf("disabled: %s", r.Stdout)
	}
	writeSettings(t, dir, `{"permissionMode": 2, "agents": {"enabled": true}}`)
	r = runAW(t, dir, nil, "agent", "run", "x")
	if r.field(t, ".error.code") != "AGENT_DISABLED" || r.field(t, ".error.details.setting") != "agents.baseUrl" {
		t.Errorf("no endpoint: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "agent", "start", "x")
	if r.field(t, ".error.code") != "AGENT_DISABLED" || r.field(t, ".error.details.setting") != "agents.baseUrl" {
		t.Errorf("start, no endpoint: %s", r.Stdout)
	}
	for _, args := range [][]string{{"cancel", "run_x"}, {"send", "run_x", "more"}, {"wait", "run_x"}, {"start", "--resume", "run_x"}} {
		r := runAW(t, dir, nil, append([]string{"agent"}, args...)...)
		if r.field(t, ".error.code") != "INVALID_INPUT" || !strings.Contains(r.field(t, ".error.message").(string), "is not a run id") {
			t.Errorf("%v: %s", args, r.Stdout)
		}
	}
	for _, tc := range []struct {
		args []string
		code string
		says string
	}{
		{[]string{"send", "run_01hzzzzzzzzzzzzzzzzzzzzz"}, "INVALID_INPUT", "message is required"},
		{[]string{"wait", "run_01hzzzzzzzzzzzzzzzzzzzzz", "--timeout", "0"}, "INVALID_INPUT", "out of range"},
		{[]string{"start", "--resume", "run_01hzzzzzzzzzzzzzzzzzzzzz", "--objective", "x"}, "INVALID_INPUT", "give no objective"},
		{[]string{"run", "x", "--worker-tier", "quick"}, "INVALID_INPUT", "is not fast or good"},
		{[]string{"run", "x", "--worker-tier", "fast"}, "AGENT_DISABLED", "agents.models.fast"},
		{[]string{"run", "x", "--worker-tier", "good", "--model", "m"}, "INVALID_INPUT", "not both"},
		{[]string{"run", "x", "--research-project", "research_0000000000000000000000a"}, "NOT_FOUND", "no research project"},
	} {
		r := runAW(t, dir, nil, append([]string{"agent"}, tc.args...)...)
		if r.field(t, ".error.code") != tc.code || !strings.Contains(r.field(t, ".error.message").(string), tc.says) {
			t.Errorf("%v: %s", tc.args, r.Stdout)
		}
	}
	r = runAW(t, dir, nil, "agent", "status", "run_01hzzzzzzzzzzzzzzzzzzzzz")
	if c := r.field(t, ".error.code"); c != "NOT_FOUND" && c != "INVALID_INPUT" {
		t.Errorf("unknown run: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "agent", "status", "nope")
	if r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Errorf("bad id: %s", r.Stdout)
	}
	// A model endpoint that fails ends the run failed, with the reason.
	model := agenttest.New(t)
	writeSettings(t, dir, fmt.Sprintf(`{"permissionMode": 2, "agents": {"enabled": true, "baseUrl": %q, "model": "scripted"}}`, model.BaseURL()))
	r = runAW(t, dir, nil, "agent", "run", "x")
	if r.Code != 1 || r.field(t, ".error.code") != "NETWORK_ERROR" || r.field(t, ".data.status") != "failed" || r.field(t, ".data.statePath") == nil {
		t.Errorf("failing endpoint: %s", r.Stdout)
	}
}

// An approved Manual-mode run runs its own commands under that approval:
// each still passes the command policy, and its edits stay planned.
func TestAgentManualApprovedRunRunsItsCommands(t *testing.T) {
	model := agenttest.New(t,
		agenttest.Turn{Calls: []agenttest.Call{
			call("workspace_command", M{"action": "run", "executable": "echo", "args": []any{"hi"}}),
			call("workspace_command", M{"action": "run", "executable": "rm", "args": []any{"README.md"}}),
			call("workspace_edit", M{"action": "apply", "operations": []any{M{"type": "replace", "path": "README.md", "search": "line two", "replacement": "line 2"}}}),
		}},
		agenttest.Turn{Content: report, Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
			var got []string
			for _, m := range req.Messages {
				if m.Role == "tool" {
					var env struct {
						OK   bool
						Data struct {
							Status   string
							ExitCode *int
						}
						Error struct{ Code string }
					}
					json.Unmarshal([]byte(m.Content), &env)
					got = append(got, fmt.Sprintf("%v/%s/%s", env.OK, env.Data.Status, env.Error.Code))
				}
			}
			if strings.Join(got, " ") != "true/exited/ false//COMMAND_DENIED true/planned/" {
				t.Errorf("tool results: %v", got)
			}
		}},
	)
	dir, human := manualWorkspace(t, fmt.Sprintf(`, "agents": {"enabled": true, "allowCommands": true, "baseUrl": %q, "model": "scripted"}, "commands": {"allow": ["echo"]}`, model.BaseURL()))
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# demo\nline two\n"), 0o644)
	staged := runAW(t, dir, nil, "agent", "run", "Say hi")
	if staged.Code != 3 || model.Served() != 0 {
		t.Fatalf("staged: %s", staged.Stdout)
	}
	id := staged.field(t, ".data.approval.id").(string)
	if a := runAWEnv(t, dir, nil, human, "approval", "accept", id); a.Code != 0 {
		t.Fatalf("accept: %s", a.Stdout)
	}
	resume, _ := json.Marshal(staged.field(t, ".data.approval.resume.arguments"))
	r := runAW(t, dir, nil, "call", "workspace_agent", string(resume))
	if r.Code != 0 || r.field(t, ".data.status") != "completed" || r.field(t, ".data.commitEdits") != false || r.field(t, ".data.allowCommands") != true {
		t.Fatalf("approved run: %d %s", r.Code, r.Stdout)
	}
	if len(r.field(t, ".data.jobs").([]any)) != 1 {
		t.Errorf("jobs: %s", r.Stdout)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "README.md")); !strings.Contains(string(got), "line two") {
		t.Errorf("README.md changed in Manual mode: %q", got)
	}
	// The approval is consumed: the same run is staged afresh.
	if again := runAW(t, dir, nil, "call", "workspace_agent", string(resume)); again.Code != 3 || again.field(t, ".data.approval.id") == id {
		t.Errorf("re-issued after use: %s", again.Stdout)
	}
}

// Plan mode with an approved plan: the run commits its own edits.
func TestAgentPlanApprovedCommitsEdits(t *testing.T) {
	model := agenttest.New(t,
		agenttest.Turn{Calls: []agenttest.Call{call("workspace_edit", M{"action": "apply", "operations": []any{M{"type": "replace", "path": "README.md", "search": "line two", "replacement": "line 2"}}})}},
		agenttest.Turn{Content: report},
	)
	dir, human := manualWorkspace(t, fmt.Sprintf(`, "agents": {"enabled": true, "baseUrl": %q, "model": "scripted"}`, model.BaseURL()))
	writeSettings(t, dir, fmt.Sprintf(`{"permissionMode": 1, "agents": {"enabled": true, "baseUrl": %q, "model": "scripted"}}`, model.BaseURL()))
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# demo\nline two\n"), 0o644)
	plan := runAW(t, dir, []byte(`{"title":"Edit","objective":"Edit README","steps":["run a sub-agent"]}`), "plan", "propose", "--input", "-")
	pid := plan.field(t, ".data.planId").(string)
	if a := runAWEnv(t, dir, nil, human, "approval", "accept", pid); a.Code != 0 {
		t.Fatalf("accept plan: %s", a.Stdout)
	}
	r := runAW(t, dir, nil, "agent", "run", "Edit README")
	if r.Code != 0 || r.field(t, ".data.commitEdits") != true || fmt.Sprint(r.field(t, ".data.changedPaths")) != "[README.md]" {
		t.Fatalf("run under an approved plan: %s", r.Stdout)
	}
}

// agentOperations: a scripted run and every agent action after it, for
// the compaction goldens.
func agentOperations(t testing.TB) map[string][]byte {
	tt := t.(*testing.T)
	model := agenttest.New(t,
		agenttest.Turn{Content: "Checking the file.", Calls: []agenttest.Call{call("workspace_inspect", M{"action": "stat", "path": "README.md"})}},
		agenttest.Turn{Content: report},
	)
	c := newCaller(t, agentWorkspace(tt, model, 2, ""))
	ran := c.call("workspace_agent", `{"action":"run","objective":"Check README.md"}`)
	id := field(t, ran, ".data.runId")
	c.call("workspace_agent", fmt.Sprintf(`{"action":"status","run_id":%q}`, id))
	c.call("workspace_agent", fmt.Sprintf(`{"action":"history","run_id":%q,"limit":3}`, id))
	c.call("workspace_agent", `{"action":"list"}`)
	c.call("workspace_agent", fmt.Sprintf(`{"action":"cancel","run_id":%q}`, id))
	c.call("workspace_agent", fmt.Sprintf(`{"action":"wait","run_id":%q,"timeout_seconds":1}`, id))
	c.call("workspace_agent", fmt.Sprintf(`{"action":"start","resume":%q}`, id))
	return c.out
}

// A run whose process dies is interrupted, never running forever; the
// API key goes to the endpoint from the variable agents.apiKeyEnv names.
func TestAgentKilledRunIsInterrupted(t *testing.T) {
	model := agenttest.New(t, agenttest.Turn{Hang: true})
	dir := agentWorkspace(t, model, 2, `"apiKeyEnv": "AW_TEST_MODEL_KEY"`)
	cmd := exec.Command(awBin, "agent", "run", "Wait forever")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".userconfig-none"), "AW_ROOT=", "AW_TEST_MODEL_KEY=sk-test")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-model.Waiting:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the run never asked the model")
	}
	l := runAW(t, dir, nil, "agent", "list")
	id, _ := l.field(t, ".data.runs.0.runId").(string)
	if l.field(t, ".data.runs.0.status") != "running" {
		t.Errorf("while its process lives: %s", l.Stdout)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	st := runAW(t, dir, nil, "agent", "status", id)
	if st.field(t, ".data.status") != "interrupted" || !strings.Contains(st.Env["summary"].(string), "ended before the run did") {
		t.Errorf("after kill -9: %s", st.Stdout)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, ".agentic", "agents", id, "state.json"))
	if !strings.Contains(string(raw), `"status": "interrupted"`) || strings.Contains(string(raw), "sk-test") {
		t.Errorf("state.json: %s", raw)
	}
	// The key reached the endpoint (the hung request is not recorded; a
	// second run shows it).
	model2 := agenttest.New(t, agenttest.Turn{Content: report})
	writeSettings(t, dir, fmt.Sprintf(`{"permissionMode": 2, "agents": {"enabled": true, "baseUrl": %q, "model": "scripted", "apiKeyEnv": "AW_TEST_MODEL_KEY"}}`, model2.BaseURL()))
	runAWEnv(t, dir, nil, []string{"AW_TEST_MODEL_KEY=sk-test"}, "agent", "run", "x")
	if model2.Auth != "Bearer sk-test" {
		t.Errorf("Authorization %q", model2.Auth)
	}
}

func TestMCPOffersAgentOnlyWhenEnabled(t *testing.T) {
	for _, tc := range []struct {
		settings string
		want     bool
	}{{`{"permissionMode": 2}`, false}, {`{"permissionMode": 2, "agents": {"enabled": true}}`, true}} {
		c := startMCP(t, mcpWorkspace(t, tc.settings), clientOpts{})
		if got := c.tools(t)["workspace_agent"] != nil; got != tc.want {
			t.Errorf("%s: workspace_agent offered %v", tc.settings, got)
		}
	}
}

// Tool results that would overflow a pass's context budget are compacted,
// oldest first, before the next request (the model server checks every
// request fits).
func TestAgentPassStaysUnderBudget(t *testing.T) {
	var reads []agenttest.Call
	for i := 0; i < 14; i++ {
		reads = append(reads, call("workspace_inspect", M{"action": "read", "path": "big.txt"}))
	}
	model := agenttest.New(t,
		agenttest.Turn{Calls: reads},
		agenttest.Turn{Content: report, Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
			first, last := "", ""
			for _, m := range req.Messages {
				if m.Role == "tool" {
					if first == "" {
						first = m.Content
					}
					last = m.Content
				}
			}
			if len(first) > 2500 || len(last) < 15000 || !strings.Contains(first, `"operation":"inspect.read"`) {
				t.Errorf("oldest result %d chars, newest %d: the oldest should be compacted, the newest kept", len(first), len(last))
			}
		}},
	)
	dir := agentWorkspace(t, model, 2, "")
	writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("a line of text that fills the read window\n", 2000))
	r := runAW(t, dir, nil, "agent", "run", "Read big.txt many times")
	if r.field(t, ".data.status") != "completed" {
		t.Fatalf("run: %s", r.Stdout)
	}
}

// A denied run stays denied when re-issued unchanged.
func TestAgentDeniedRunStaysDenied(t *testing.T) {
	model := agenttest.New(t)
	dir, human := manualWorkspace(t, fmt.Sprintf(`, "agents": {"enabled": true, "allowCommands": true, "baseUrl": %q, "model": "scripted"}, "commands": {"allow": ["echo"]}`, model.BaseURL()))
	staged := runAW(t, dir, nil, "agent", "run", "Delete everything")
	id := staged.field(t, ".data.approval.id").(string)
	if d := runAWEnv(t, dir, nil, human, "approval", "deny", id, "no"); d.Code != 0 {
		t.Fatalf("deny: %s", d.Stdout)
	}
	again := runAW(t, dir, nil, "agent", "run", "Delete everything")
	if again.field(t, ".error.code") != "APPROVAL_DENIED" || model.Served() != 0 {
		t.Errorf("re-issued after a denial: %s", again.Stdout)
	}
}

// A run tied to a task board sees the board in its brief and its task
// calls land on that board without naming it; a call changing another
// board is refused, and an archived or unknown board refuses the run.
func TestAgentWorksFromItsTaskBoard(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 2}`)
	created := runAW(t, dir, nil, "tasks", "create", "release", "--item", "write the changelog", "--item", `{"text": "tag the release", "depends_on": ["1"]}`)
	board, first := str(t, created, ".data.board.id"), str(t, created, ".data.added.0")
	other := str(t, runAW(t, dir, nil, "tasks", "create", "elsewhere"), ".data.board.id")
	model := agenttest.New(t,
		agenttest.Turn{Calls: []agenttest.Call{call("workspace_tasks", M{"action": "next"})},
			Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
				sys, brief := req.Messages[0].Content, req.Messages[1].Content
				if !strings.Contains(sys, "You work from task board "+board) {
					t.Errorf("the system message does not name the board: %s", sys)
				}
				if !strings.Contains(brief, "Task board "+board+` "release"`) || !strings.Contains(brief, first+" [pending, medium] write the changelog") || !strings.Contains(brief, "(after "+first+")") {
					t.Errorf("the brief does not show the board: %s", brief)
				}
			}},
		agenttest.Turn{Calls: []agenttest.Call{
			call("workspace_tasks", M{"action": "update", "item_id": first, "status": "completed", "evidence": []any{"CHANGELOG.md"}}),
			call("workspace_tasks", M{"action": "note", "board_id": other, "text": "not mine"}),
		},
			Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
				if last := req.Messages[len(req.Messages)-1]; !strings.Contains(last.Content, `"operation":"tasks.next"`) || !strings.Contains(last.Content, first) {
					t.Errorf("next did not read the run's board: %s", last.Content)
				}
			}},
		agenttest.Turn{Content: report,
			Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
				n := len(req.Messages)
				if upd := req.Messages[n-2].Content; !strings.Contains(upd, `"ok":true`) || !strings.Contains(upd, `"operation":"tasks.update"`) {
					t.Errorf("update on the run's board: %s", upd)
				}
				if refused := req.Messages[n-1].Content; !strings.Contains(refused, "INVALID_INPUT") || !strings.Contains(refused, "works from task board "+board) {
					t.Errorf("a note on another board was not refused: %s", refused)
				}
			}},
	)
	writeSettings(t, dir, fmt.Sprintf(`{"permissionMode": 2, "agents": {"enabled": true, "baseUrl": %q, "model": "scripted"}}`, model.BaseURL()))

	r := runAW(t, dir, nil, "agent", "run", "Ship the release", "--task-board", board)
	if r.Code != 0 || r.field(t, ".data.status") != "completed" || r.field(t, ".data.taskBoardId") != board {
		t.Fatalf("run: %s", r.Stdout)
	}
	show := runAW(t, dir, nil, "tasks", "show", board)
	if show.field(t, ".data.board.items.0.status") != "completed" || show.field(t, ".data.board.items.0.evidence.0") != "CHANGELOG.md" {
		t.Errorf("the run's update is not on its board: %s", show.Stdout)
	}
	if n := runAW(t, dir, nil, "tasks", "show", other).field(t, ".data.board.notes"); len(n.([]any)) != 0 {
		t.Errorf("the other board got a note: %v", n)
	}

	wantErr(t, runAW(t, dir, nil, "agent", "run", "x", "--task-board", "board_01hzzzzzzzzzzzzzzzzzzzz"), "NOT_FOUND", 1, "no task board")
	runAW(t, dir, nil, "tasks", "archive", other)
	wantErr(t, runAW(t, dir, nil, "agent", "run", "x", "--task-board", other), "TRANSACTION_STATE", 1, "archived")
	writeSettings(t, dir, fmt.Sprintf(`{"permissionMode": 2, "tasks": {"enabled": false}, "agents": {"enabled": true, "baseUrl": %q, "model": "scripted"}}`, model.BaseURL()))
	wantErr(t, runAW(t, dir, nil, "agent", "run", "x", "--task-board", board), "TOOL_DISABLED", 1, "tasks.enabled")
}

// TestAgentLive drives a run against a real model, when one is named:
// AW_LLM_BASE_URL (an OpenAI-compatible endpoint), AW_LLM_MODEL, and the
// key, if the endpoint needs one, in AW_LLM_API_KEY. It is opt-in (no
// model can be reached from CI); the scripted-model tests above cover the
// loop's rules.
func TestAgentLive(t *testing.T) {
	base, model := os.Getenv("AW_LLM_BASE_URL"), os.Getenv("AW_LLM_MODEL")
	if base == "" || model == "" {
		t.Skip("opt-in: set AW_LLM_BASE_URL and AW_LLM_MODEL (and AW_LLM_API_KEY if the endpoint needs a key) to run a sub-agent against a real model")
	}
	dir := mcpWorkspace(t, fmt.Sprintf(`{"permissionMode": 2, "agents": {"enabled": true, "baseUrl": %q, "model": %q, "apiKeyEnv": "AW_LLM_API_KEY"}}`, base, model))
	r := runAWEnv(t, dir, nil, []string{"AW_LLM_API_KEY=" + os.Getenv("AW_LLM_API_KEY")}, "agent", "run",
		"In README.md, replace the words 'line two' with 'line 2' using workspace_edit, then report.", "--max-tool-calls", "10")
	if r.field(t, ".data.status") != "completed" || r.field(t, ".data.toolCalls").(float64) < 1 {
		t.Fatalf("live run: %s", r.Stdout)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "README.md")); !strings.Contains(string(got), "line 2") {
		t.Errorf("the live run did not edit README.md: %q (summary %v)", got, r.field(t, ".data.summary"))
	}
}

// TestAgentReadsHostSnapshot: with a host, a run reads the ground-truth
// files as of its start: a write mid-run is not in its later passes, the
// next run sees it, and a run naming the first as its parent reads the
// first's snapshot. A host that cannot answer refuses the run.
func TestAgentReadsHostSnapshot(t *testing.T) {
	hs := newHostStore(t, hostBackends()[0])
	srv := hs.serve(t)
	tok := hs.token(t, "acme", "main")
	srv.put(t, tok, "DIRECTIVES.md", "Answer in haiku.\n", "").want(t, 200, "")
	stat := call("workspace_inspect", M{"action": "stat", "path": "README.md"})
	brief := func(want, never string) func(t testing.TB, req *agent.ChatRequest, raw []byte) {
		return func(t testing.TB, req *agent.ChatRequest, raw []byte) {
			text := req.Messages[1].Content
			if !strings.Contains(text, want) || never != "" && strings.Contains(text, never) {
				t.Errorf("the brief should hold %q (and not %q): %s", want, never, text)
			}
		}
	}
	model := agenttest.New(t,
		// Run 1, pass 1: the file as it was; then it changes on the host.
		agenttest.Turn{Calls: []agenttest.Call{stat}, Check: func(t testing.TB, req *agent.ChatRequest, raw []byte) {
			brief("--- DIRECTIVES.md (version 1, 17 bytes) ---\nAnswer in haiku.\n", "")(t, req, raw)
			srv.put(t, tok, "DIRECTIVES.md", "Answer in prose.\n", "").want(t, 200, "")
		}},
		// Run 1, pass 2: still the snapshot of its start.
		agenttest.Turn{Content: report, Check: brief("Answer in haiku.", "prose")},
		// Run 2: a new run sees the write.
		agenttest.Turn{Content: report, Check: brief("--- DIRECTIVES.md (version 2, 17 bytes) ---\nAnswer in prose.\n", "haiku")},
		// Run 3: a sub-agent of run 1 reads run 1's snapshot.
		agenttest.Turn{Content: report, Check: brief("Answer in haiku.", "prose")},
	)
	dir := mcpWorkspace(t, fmt.Sprintf(`{"permissionMode": 2, "host": {"url": %q}, "agents": {"enabled": true, "baseUrl": %q, "model": "scripted"}}`, srv.url, model.BaseURL()))
	env := []string{"AW_HOST_TOKEN=" + tok}
	r := runAWEnv(t, dir, nil, env, "agent", "run", "Follow the directives", "--max-passes", "2", "--rounds-per-pass", "1")
	if r.Code != 0 || r.field(t, ".data.status") != "completed" {
		t.Fatalf("run 1: %s", r.Stdout)
	}
	first := r.field(t, ".data.hostSnapshot").(map[string]any)
	if !strings.HasPrefix(first["snapshotId"].(string), "snapshot_") || fmt.Sprint(first["files"]) != "[DIRECTIVES.md]" {
		t.Fatalf("run 1's host snapshot: %s", r.Stdout)
	}
	r = runAWEnv(t, dir, nil, env, "agent", "run", "Follow the directives")
	if r.field(t, ".data.hostSnapshot.snapshotId") == first["snapshotId"] {
		t.Fatalf("run 2 reused run 1's snapshot: %s", r.Stdout)
	}
	r = runAWEnv(t, dir, nil, env, "agent", "run", "Follow the directives", "--host-parent-run", first["hostRunId"].(string))
	if r.Code != 0 || r.field(t, ".data.hostSnapshot.snapshotId") != first["snapshotId"] || r.field(t, ".data.hostSnapshot.parentRunId") != first["hostRunId"] {
		t.Fatalf("run 3 did not inherit run 1's snapshot: %s", r.Stdout)
	}
	if model.Served() != 4 {
		t.Fatalf("the model served %d requests, want 4", model.Served())
	}
	// Refusals: no run is recorded for any of them.
	wantCode(t, runAWEnv(t, dir, nil, env, "agent", "run", "x", "--host-parent-run", "run_unknown"), "NOT_FOUND")
	wantCode(t, runAW(t, dir, nil, "agent", "run", "x"), "INVALID_INPUT") // no token
	srv.stop()
	wantCode(t, runAWEnv(t, dir, nil, env, "agent", "run", "x"), "NETWORK_ERROR")
	if l := runAW(t, dir, nil, "agent", "list"); l.field(t, ".data.total") != 3.0 {
		t.Fatalf("a refused run was recorded: %s", l.Stdout)
	}
}
